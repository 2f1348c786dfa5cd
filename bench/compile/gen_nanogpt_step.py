#!/usr/bin/env python3
"""Writes a prec module holding one data-parallel training step of a small
GPT (nanoGPT's shape, scaled down) whose backward prec-generate-backward
writes.

The model, per rank (4 ranks, defaults: 16 tokens, width 64, vocabulary 128,
4 heads of 16, MLP 256, 2 layers):

  x     = onehot(tokens) @ wte + wpe
  per layer:
    a   = LayerNorm(x)
    x  += sum over heads h of softmax(causal(q_h k_h^T / sqrt(16))) v_h @ wo_h
          with q_h = a @ wq_h, k_h = a @ wk_h, v_h = a @ wv_h
    m   = LayerNorm(x)
    x  += GELU(m @ w1 + b1) @ w2 + b2          (GELU in its tanh form)
  loss  = cross-entropy(softmax(LayerNorm(x) @ lm_head), targets)

Matmul operands are bf16, accumulated in f32 (FSDP2's param_dtype); the
residual stream, the normalizations, the softmaxes and the loss are f32.
Each head has its own weights, so that the program needs no reshapes. The
step computes the loss and its generated backward, averages every gradient
over the ranks (`prec.all_reduce avg`) and applies SGD.

  gen_nanogpt_step.py [--layers 2] [-o FILE]
"""

import argparse
import sys

RANKS = 4
TOKENS = 16
WIDTH = 64
VOCAB = 128
HEADS = 4
HEAD = WIDTH // HEADS
HIDDEN = 4 * WIDTH


def t(*shape, dtype="f32"):
    return f"tensor<{'x'.join(str(s) for s in shape)}x{dtype}>"


ROWS = "affine_map<(i, j) -> (i, j)>"
ROW = "affine_map<(i, j) -> (i)>"
COL = "affine_map<(i, j) -> (j)>"


class Writer:
    def __init__(self):
        self.lines = []
        self.counter = 0

    def fresh(self, stem):
        self.counter += 1
        return f"%{stem}{self.counter}"

    def emit(self, text):
        self.lines.append("  " + text)

    def zeros(self, *shape):
        empty = self.fresh("e")
        zeros = self.fresh("z")
        ty = t(*shape)
        self.emit(f"{empty} = tensor.empty() : {ty}")
        self.emit(f"{zeros} = linalg.fill ins(%zero : f32) outs({empty} : {ty}) -> {ty}")
        return zeros

    def to_bf16(self, value, *shape):
        out = self.fresh("b")
        self.emit(f"{out} = prec.cast {value} : {t(*shape)} to {t(*shape, dtype='bf16')}")
        return out

    def matmul(self, a, b, m, k, n):
        """a (m x k, bf16) @ b (k x n, bf16), accumulated in f32."""
        acc = self.zeros(m, n)
        out = self.fresh("mm")
        self.emit(f"{out} = linalg.matmul ins({a}, {b} : {t(m, k, dtype='bf16')}, "
                  f"{t(k, n, dtype='bf16')}) outs({acc} : {t(m, n)}) -> {t(m, n)}")
        return out

    def row_sum(self, value, rows, cols, square=False):
        acc = self.zeros(rows)
        out = self.fresh("rs")
        body = ("%sq = arith.mulf %v, %v : f32\n    %s = arith.addf %acc, %sq : f32"
                if square else "%s = arith.addf %acc, %v : f32")
        self.emit(f"""{out} = linalg.generic {{indexing_maps = [{ROWS}, {ROW}], iterator_types = ["parallel", "reduction"]}}
      ins({value} : {t(rows, cols)}) outs({acc} : {t(rows)}) {{
  ^bb0(%v: f32, %acc: f32):
    {body}
    linalg.yield %s : f32
  }} -> {t(rows)}""")
        return out

    def layer_norm(self, x, gain, bias):
        total = self.row_sum(x, TOKENS, WIDTH)
        empty = self.fresh("e")
        self.emit(f"{empty} = tensor.empty() : {t(TOKENS, WIDTH)}")
        centered = self.fresh("xc")
        self.emit(f"""{centered} = linalg.generic {{indexing_maps = [{ROWS}, {ROW}, {ROWS}], iterator_types = ["parallel", "parallel"]}}
      ins({x}, {total} : {t(TOKENS, WIDTH)}, {t(TOKENS)}) outs({empty} : {t(TOKENS, WIDTH)}) {{
  ^bb0(%v: f32, %s: f32, %out: f32):
    %width = arith.constant {float(WIDTH)} : f32
    %mean = arith.divf %s, %width : f32
    %c = arith.subf %v, %mean : f32
    linalg.yield %c : f32
  }} -> {t(TOKENS, WIDTH)}""")
        squares = self.row_sum(centered, TOKENS, WIDTH, square=True)
        out = self.fresh("ln")
        self.emit(f"""{out} = linalg.generic {{indexing_maps = [{ROWS}, {ROW}, {COL}, {COL}, {ROWS}], iterator_types = ["parallel", "parallel"]}}
      ins({centered}, {squares}, {gain}, {bias} : {t(TOKENS, WIDTH)}, {t(TOKENS)}, {t(WIDTH)}, {t(WIDTH)})
      outs({empty} : {t(TOKENS, WIDTH)}) {{
  ^bb0(%c: f32, %s: f32, %g: f32, %b: f32, %out: f32):
    %width = arith.constant {float(WIDTH)} : f32
    %eps = arith.constant 1.0e-5 : f32
    %var = arith.divf %s, %width : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    %n = arith.mulf %c, %r : f32
    %ng = arith.mulf %n, %g : f32
    %y = arith.addf %ng, %b : f32
    linalg.yield %y : f32
  }} -> {t(TOKENS, WIDTH)}""")
        return out

    def add_bias(self, x, bias, rows, cols, gelu=False):
        empty = self.fresh("e")
        self.emit(f"{empty} = tensor.empty() : {t(rows, cols)}")
        out = self.fresh("ab")
        body = "linalg.yield %y : f32"
        if gelu:
            body = """%half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k0 = arith.constant 0.7978845608 : f32
    %k1 = arith.constant 0.044715 : f32
    %y2 = arith.mulf %y, %y : f32
    %y3 = arith.mulf %y2, %y : f32
    %ky3 = arith.mulf %k1, %y3 : f32
    %inner = arith.addf %y, %ky3 : f32
    %arg = arith.mulf %k0, %inner : f32
    %th = math.tanh %arg : f32
    %onep = arith.addf %one, %th : f32
    %hy = arith.mulf %half, %y : f32
    %gelu = arith.mulf %hy, %onep : f32
    linalg.yield %gelu : f32"""
        self.emit(f"""{out} = linalg.generic {{indexing_maps = [{ROWS}, {COL}, {ROWS}], iterator_types = ["parallel", "parallel"]}}
      ins({x}, {bias} : {t(rows, cols)}, {t(cols)}) outs({empty} : {t(rows, cols)}) {{
  ^bb0(%v: f32, %b: f32, %out: f32):
    %y = arith.addf %v, %b : f32
    {body}
  }} -> {t(rows, cols)}""")
        return out

    def attention_head(self, a16, wq, wk, wv, wo):
        q = self.matmul(a16, wq, TOKENS, WIDTH, HEAD)
        k = self.matmul(a16, wk, TOKENS, WIDTH, HEAD)
        v = self.matmul(a16, wv, TOKENS, WIDTH, HEAD)
        k16 = self.to_bf16(k, TOKENS, HEAD)
        kt_init = self.fresh("e")
        kt = self.fresh("kt")
        self.emit(f"{kt_init} = tensor.empty() : {t(HEAD, TOKENS, dtype='bf16')}")
        self.emit(f"{kt} = linalg.transpose ins({k16} : {t(TOKENS, HEAD, dtype='bf16')}) "
                  f"outs({kt_init} : {t(HEAD, TOKENS, dtype='bf16')}) permutation = [1, 0]")
        scores = self.matmul(self.to_bf16(q, TOKENS, HEAD), kt, TOKENS, HEAD, TOKENS)
        empty = self.fresh("e")
        self.emit(f"{empty} = tensor.empty() : {t(TOKENS, TOKENS)}")
        masked = self.fresh("sm")
        self.emit(f"""{masked} = linalg.generic {{indexing_maps = [{ROWS}, {ROWS}, {ROWS}], iterator_types = ["parallel", "parallel"]}}
      ins({scores}, %mask : {t(TOKENS, TOKENS)}, {t(TOKENS, TOKENS)}) outs({empty} : {t(TOKENS, TOKENS)}) {{
  ^bb0(%s: f32, %m: f32, %out: f32):
    %scale = arith.constant {1.0 / HEAD ** 0.5} : f32
    %ss = arith.mulf %s, %scale : f32
    %y = arith.addf %ss, %m : f32
    linalg.yield %y : f32
  }} -> {t(TOKENS, TOKENS)}""")
        probs = self.fresh("p")
        self.emit(f"{probs} = linalg.softmax dimension(1) ins({masked} : {t(TOKENS, TOKENS)}) "
                  f"outs({empty} : {t(TOKENS, TOKENS)}) -> {t(TOKENS, TOKENS)}")
        o = self.matmul(self.to_bf16(probs, TOKENS, TOKENS),
                        self.to_bf16(v, TOKENS, HEAD), TOKENS, TOKENS, HEAD)
        return self.matmul(self.to_bf16(o, TOKENS, HEAD), wo, TOKENS, HEAD, WIDTH)


def parameters(layers):
    """(name, shape) of every parameter, in argument order."""
    params = [("wte", (VOCAB, WIDTH)), ("wpe", (TOKENS, WIDTH))]
    for l in range(layers):
        params += [(f"ln1g_{l}", (WIDTH,)), (f"ln1b_{l}", (WIDTH,))]
        for h in range(HEADS):
            params += [(f"wq_{l}_{h}", (WIDTH, HEAD)), (f"wk_{l}_{h}", (WIDTH, HEAD)),
                       (f"wv_{l}_{h}", (WIDTH, HEAD)), (f"wo_{l}_{h}", (HEAD, WIDTH))]
        params += [(f"ln2g_{l}", (WIDTH,)), (f"ln2b_{l}", (WIDTH,)),
                   (f"w1_{l}", (WIDTH, HIDDEN)), (f"b1_{l}", (HIDDEN,)),
                   (f"w2_{l}", (HIDDEN, WIDTH)), (f"b2_{l}", (WIDTH,))]
    params += [("lnfg", (WIDTH,)), ("lnfb", (WIDTH,)), ("head", (WIDTH, VOCAB))]
    return params


def loss_function(layers):
    params = parameters(layers)
    data = [("tokens", (TOKENS, VOCAB)), ("targets", (TOKENS, VOCAB)),
            ("mask", (TOKENS, TOKENS))]
    w = Writer()
    w.emit("%zero = arith.constant 0.0 : f32")
    # Matmul operands in bf16, each weight cast once.
    bf16 = {}
    for name, shape in params:
        if len(shape) == 2:
            bf16[name] = w.to_bf16(f"%{name}", *shape)
    tokens16 = w.to_bf16("%tokens", TOKENS, VOCAB)
    embedded = w.matmul(tokens16, bf16["wte"], TOKENS, VOCAB, WIDTH)
    x = w.fresh("x")
    w.emit(f"{x} = arith.addf {embedded}, %wpe : {t(TOKENS, WIDTH)}")
    for l in range(layers):
        a = w.layer_norm(x, f"%ln1g_{l}", f"%ln1b_{l}")
        a16 = w.to_bf16(a, TOKENS, WIDTH)
        for h in range(HEADS):
            head = w.attention_head(a16, bf16[f"wq_{l}_{h}"], bf16[f"wk_{l}_{h}"],
                                    bf16[f"wv_{l}_{h}"], bf16[f"wo_{l}_{h}"])
            summed = w.fresh("x")
            w.emit(f"{summed} = arith.addf {x}, {head} : {t(TOKENS, WIDTH)}")
            x = summed
        m = w.layer_norm(x, f"%ln2g_{l}", f"%ln2b_{l}")
        hidden = w.matmul(w.to_bf16(m, TOKENS, WIDTH), bf16[f"w1_{l}"],
                          TOKENS, WIDTH, HIDDEN)
        activated = w.add_bias(hidden, f"%b1_{l}", TOKENS, HIDDEN, gelu=True)
        out = w.matmul(w.to_bf16(activated, TOKENS, HIDDEN), bf16[f"w2_{l}"],
                       TOKENS, HIDDEN, WIDTH)
        biased = w.add_bias(out, f"%b2_{l}", TOKENS, WIDTH)
        summed = w.fresh("x")
        w.emit(f"{summed} = arith.addf {x}, {biased} : {t(TOKENS, WIDTH)}")
        x = summed
    final = w.layer_norm(x, "%lnfg", "%lnfb")
    logits = w.matmul(w.to_bf16(final, TOKENS, WIDTH), bf16["head"],
                      TOKENS, WIDTH, VOCAB)
    empty = w.fresh("e")
    w.emit(f"{empty} = tensor.empty() : {t(TOKENS, VOCAB)}")
    w.emit(f"%probs = linalg.softmax dimension(1) ins({logits} : {t(TOKENS, VOCAB)}) "
           f"outs({empty} : {t(TOKENS, VOCAB)}) -> {t(TOKENS, VOCAB)}")
    w.emit(f"%logp = math.log %probs : {t(TOKENS, VOCAB)}")
    w.emit(f"%picked = arith.mulf %targets, %logp : {t(TOKENS, VOCAB)}")
    w.emit(f"%total = prec.reduce %picked dims = [0, 1] reduction = <sum> acc_dtype = f32 "
           f": {t(TOKENS, VOCAB)} -> tensor<f32>")
    w.emit(f"%per_token = arith.constant dense<{-1.0 / TOKENS}> : tensor<f32>")
    w.emit("%loss = arith.mulf %total, %per_token : tensor<f32>")
    w.emit("return %loss : tensor<f32>")
    arguments = ", ".join(f"%{n}: {t(*s)}" for n, s in params + data)
    return (f"func.func private @loss({arguments})\n    -> tensor<f32> "
            "attributes {prec.differentiable} {\n" + "\n".join(w.lines) + "\n}\n")


def module(layers: int = 2) -> str:
    params = parameters(layers)
    data = [("tokens", (TOKENS, VOCAB)), ("targets", (TOKENS, VOCAB)),
            ("mask", (TOKENS, TOKENS))]
    everything = params + data
    types = [t(*s) for _, s in everything]
    param_types = [t(*s) for _, s in params]
    gradient_types = types  # every argument is a float tensor
    parts = [
        f"// A {layers}-layer GPT training step on {RANKS} data-parallel ranks "
        "(bench/compile/gen_nanogpt_step.py).",
        f"shard.grid @dp(shape = {RANKS})",
        "",
        loss_function(layers),
        "// Filled in by prec-generate-backward.",
        f"func.func private @loss_backward({', '.join(types + ['tensor<f32>'])})\n"
        f"    -> ({', '.join(gradient_types)})",
        "",
    ]
    step_args = ", ".join(f"%{n}: {t(*s)}" for n, s in everything) + ", %lr: f32"
    body = [
        f"  %loss = call @loss({', '.join('%' + n for n, _ in everything)})"
        f"\n      : ({', '.join(types)}) -> tensor<f32>",
        "  %seed = arith.constant dense<1.0> : tensor<f32>",
        f"  %d:{len(everything)} = call @loss_backward("
        f"{', '.join('%' + n for n, _ in everything)}, %seed)"
        f"\n      : ({', '.join(types + ['tensor<f32>'])}) -> ({', '.join(gradient_types)})",
    ]
    for i, (name, shape) in enumerate(params):
        body.append(f"  %avg_{name} = prec.all_reduce %d#{i} on @dp reduction = <avg> "
                    f": {t(*shape)} -> {t(*shape)}")
        body.append(f"  %next_{name} = prec.sgd %{name}, %avg_{name}, %lr "
                    f": {t(*shape)}, {t(*shape)}")
    body.append("  %mean_loss = prec.all_reduce %loss on @dp reduction = <avg> "
                ": tensor<f32> -> tensor<f32>")
    body.append(f"  return {', '.join('%next_' + n for n, _ in params)}, %mean_loss"
                f"\n      : {', '.join(param_types + ['tensor<f32>'])}")
    parts.append(f"func.func @train_step({step_args})\n    -> "
                 f"({', '.join(param_types + ['tensor<f32>'])}) {{\n"
                 + "\n".join(body) + "\n}\n")
    return "\n".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    if args.layers < 1:
        parser.error("--layers must be at least 1")
    text = module(args.layers)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
