#!/usr/bin/env python3
"""Writes a prec module holding one FSDP training step of L layers.

Modelled on examples/fsdp_step.mlir. Every layer i holds an f32 shard of its
weight (1/4 of the rows on 4 data-parallel ranks) and does:

  w_i    = all_gather(shard_i) in bf16 (gradient reduce-scattered in f32)
  h_i    = cast(h_{i-1} @ w_i, bf16)              matmul accumulating in f32
  dw_i   = h_{i-1}^T @ h_i                        a linear layer's weight
                                                  gradient, h_i standing in
                                                  for the output gradient
  g_i    = reduce_scatter(dw_i) avg, f32 wire and accumulation
  next_i = sgd(shard_i, g_i, lr)

and returns every updated shard.

With --shared-input the weight gradient of every layer reads one tensor
instead, dw_i = xt @ h_i with xt an argument of the step: a tensor read by
all L layers, the case in which one-shot bufferization's conflict analysis
is quadratic (docs/performance.md).

  gen_fsdp_step.py LAYERS [--shared-input] [-o FILE]
"""

import argparse
import sys

RANKS = 4
BATCH = 8
WIDTH = 64
SHARD_ROWS = WIDTH // RANKS

SHARD = f"tensor<{SHARD_ROWS}x{WIDTH}xf32>"
FULL_BF16 = f"tensor<{WIDTH}x{WIDTH}xbf16>"
FULL_F32 = f"tensor<{WIDTH}x{WIDTH}xf32>"
ACT_BF16 = f"tensor<{BATCH}x{WIDTH}xbf16>"
ACT_F32 = f"tensor<{BATCH}x{WIDTH}xf32>"
XT_BF16 = f"tensor<{WIDTH}x{BATCH}xbf16>"


def layer(i: int, h_prev: str, shared_input: bool) -> str:
    if shared_input:
        gradient_input = "%xt"
        transpose = ""
    else:
        gradient_input = f"%ht{i}"
        transpose = f"""\
  %ht_init{i} = tensor.empty() : {XT_BF16}
  %ht{i} = linalg.transpose ins({h_prev} : {ACT_BF16})
                           outs(%ht_init{i} : {XT_BF16}) permutation = [1, 0]
"""
    return f"""\
  %w{i} = prec.all_gather %shard{i} on @dp gather_axis = 0
          forward_dtype = bf16 backward_dtype = f32 : {SHARD} -> {FULL_BF16}
  %h_init{i} = tensor.empty() : {ACT_F32}
  %h_zero{i} = linalg.fill ins(%zero : f32) outs(%h_init{i} : {ACT_F32}) -> {ACT_F32}
  %h_acc{i} = linalg.matmul ins({h_prev}, %w{i} : {ACT_BF16}, {FULL_BF16})
                           outs(%h_zero{i} : {ACT_F32}) -> {ACT_F32}
  %h{i} = prec.cast %h_acc{i} : {ACT_F32} to {ACT_BF16}
{transpose}  %dw_init{i} = tensor.empty() : {FULL_F32}
  %dw_zero{i} = linalg.fill ins(%zero : f32) outs(%dw_init{i} : {FULL_F32}) -> {FULL_F32}
  %dw{i} = linalg.matmul ins({gradient_input}, %h{i} : {XT_BF16}, {ACT_BF16})
                        outs(%dw_zero{i} : {FULL_F32}) -> {FULL_F32}
  %g{i} = prec.reduce_scatter %dw{i} on @dp scatter_axis = 0 reduction = <avg>
          forward_dtype = f32 acc_dtype = f32 : {FULL_F32} -> {SHARD}
  %next{i} = prec.sgd %shard{i}, %g{i}, %lr : {SHARD}, {SHARD}
"""


def module(layers: int, shared_input: bool = False) -> str:
    shards = ", ".join(f"%shard{i}: {SHARD}" for i in range(layers))
    results = ", ".join([SHARD] * layers)
    lines = [
        f"// One FSDP step of {layers} layers on {RANKS} ranks "
        "(bench/compile/gen_fsdp_step.py).",
        f"shard.grid @dp(shape = {RANKS})",
        "",
        f"func.func @fsdp_step(%x: {ACT_BF16}, "
        + (f"%xt: {XT_BF16}, " if shared_input else "")
        + f"%lr: f32, {shards})",
        f"    -> ({results}) {{",
        "  %zero = arith.constant 0.0 : f32",
    ]
    body = [layer(i, "%x" if i == 0 else f"%h{i - 1}", shared_input)
            for i in range(layers)]
    returned = ", ".join(f"%next{i}" for i in range(layers))
    tail = [f"  return {returned} : {results}", "}", ""]
    return "\n".join(lines) + "\n" + "".join(body) + "\n".join(tail)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("layers", type=int)
    parser.add_argument("--shared-input", action="store_true",
                        help="every layer's gradient reads one tensor")
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    if args.layers < 1:
        parser.error("LAYERS must be at least 1")
    text = module(args.layers, args.shared_input)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
