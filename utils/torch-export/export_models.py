"""Exports small PyTorch models through torch-mlir as prec's tests use them.

Usage: python export_models.py OUT_DIR [--dim D] [--heads H] [--vocab V]
           [--seq S] [--layers L] [--dtype f64|f32|bf16]

Writes OUT_DIR/{mlp,nanogpt,llama}.mlir: each a `@loss` function in linalg on
tensors (`output_type="linalg-on-tensors"`), whose arguments are the model's
parameters (in `named_parameters()` order, tied ones once) followed by its
inputs (token ids, targets), and whose result is the scalar loss. Arguments
are named as in PyTorch (`prec.name`: the parameter's name, the input's name
in `forward`), and float inputs are marked `prec.no_grad`, so that
prec-fully-shard (`prec-opt --prec-from-torch`) knows the parameters. The
parameters are arguments because the module is wrapped in
`torch.func.functional_call`; otherwise they would become `dense_resource`
constants. Buffers (the causal mask, rotary tables) stay constants. The
export itself is prec_torch's (python/prec_torch/export.py), which the
PyTorch frontend (docs/PyTorch.md) uses too.

Needs PyPI `torch` and `torch-mlir` (cp311 wheel) in one environment, and
`ml_dtypes` for bf16 buffers; prec's own tests do not. The checked-in
exports under test/Integration/CPU/Inputs/torch/ come from

    python utils/torch-export/export_models.py test/Integration/CPU/Inputs/torch

with the default (tiny, f64) sizes, so that finite differences can check
every coordinate of every parameter.
"""
import argparse
import inspect
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from prec_torch import export_loss, parameter_names  # noqa: E402


class MLP(nn.Module):
    """Linear, LayerNorm, tanh-GELU, Linear; MSE against a target."""

    def __init__(self, d):
        super().__init__()
        self.fc1 = nn.Linear(d, 2 * d)
        self.norm = nn.LayerNorm(2 * d)
        self.fc2 = nn.Linear(2 * d, d)

    def forward(self, x, target):
        h = F.gelu(self.norm(self.fc1(x)), approximate="tanh")
        return F.mse_loss(self.fc2(h), target)


class CausalSelfAttention(nn.Module):
    """nanoGPT's attention with the explicit tril mask."""

    def __init__(self, d, heads, seq):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.register_buffer("bias", torch.tril(torch.ones(seq, seq)).view(1, 1, seq, seq))

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(c, dim=2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.c_proj(y)


class GPTBlock(nn.Module):
    def __init__(self, d, heads, seq):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads, seq)
        self.ln_2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.proj = nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.proj(F.gelu(self.fc(self.ln_2(x))))


class NanoGPT(nn.Module):
    """Token and position embeddings, causal attention, tied lm_head,
    cross-entropy."""

    def __init__(self, d, heads, vocab, seq, layers):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(seq, d)
        self.h = nn.ModuleList(GPTBlock(d, heads, seq) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, idx, targets):
        t = idx.size(1)
        pos = torch.arange(0, t, dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class LlamaBlock(nn.Module):
    def __init__(self, d, heads, seq):
        super().__init__()
        self.heads = heads
        self.attn_norm = RMSNorm(d)
        self.wq = nn.Linear(d, d, bias=False)
        self.wk = nn.Linear(d, d, bias=False)
        self.wv = nn.Linear(d, d, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        self.ffn_norm = RMSNorm(d)
        self.w1 = nn.Linear(d, 2 * d, bias=False)
        self.w3 = nn.Linear(d, 2 * d, bias=False)
        self.w2 = nn.Linear(2 * d, d, bias=False)

    def forward(self, x, cos, sin):
        b, t, c = x.shape
        h = self.attn_norm(x)
        shape = (b, t, self.heads, c // self.heads)
        q = self.wq(h).view(shape).transpose(1, 2)
        k = self.wk(h).view(shape).transpose(1, 2)
        v = self.wv(h).view(shape).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.wo(y.transpose(1, 2).reshape(b, t, c))
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Llama(nn.Module):
    """RMSNorm, rotary embeddings, SwiGLU, SDPA, cross-entropy."""

    def __init__(self, d, heads, vocab, seq, layers):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(LlamaBlock(d, heads, seq) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.output = nn.Linear(d, vocab, bias=False)
        half = d // heads // 2
        freqs = 1.0 / (10000 ** (torch.arange(0, half, dtype=torch.float64) / half))
        angles = torch.outer(torch.arange(seq, dtype=torch.float64), freqs)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos()[None, None])
        self.register_buffer("sin", angles.sin()[None, None])

    def forward(self, idx, targets):
        x = self.embed(idx)
        for layer in self.layers:
            x = layer(x, self.cos.to(x.dtype), self.sin.to(x.dtype))
        logits = self.output(self.norm(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def export(model, inputs, path):
    input_names = list(inspect.signature(model.forward).parameters)[:len(inputs)]
    text = export_loss(model, inputs, input_names)
    with open(path, "w") as out:
        out.write("// Exported by utils/torch-export/export_models.py.\n")
        out.write(text)
    print("%s: %d parameters" % (path, len(parameter_names(model))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--dim", type=int, default=8)
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--vocab", type=int, default=16)
    parser.add_argument("--seq", type=int, default=4)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--dtype", choices=["f64", "f32", "bf16"], default="f64")
    options = parser.parse_args()
    dtype = {"f64": torch.float64, "f32": torch.float32, "bf16": torch.bfloat16}[options.dtype]
    d, heads, vocab, seq, layers = (options.dim, options.heads, options.vocab,
                                    options.seq, options.layers)
    os.makedirs(options.out, exist_ok=True)
    torch.manual_seed(0)
    ids = torch.randint(0, vocab, (1, seq))
    targets = torch.randint(0, vocab, (1, seq))
    export(MLP(d).to(dtype), [torch.randn(seq, d, dtype=dtype), torch.randn(seq, d, dtype=dtype)],
           os.path.join(options.out, "mlp.mlir"))
    export(NanoGPT(d, heads, vocab, seq, layers).to(dtype), [ids, targets],
           os.path.join(options.out, "nanogpt.mlir"))
    export(Llama(d, heads, vocab, seq, layers).to(dtype), [ids, targets],
           os.path.join(options.out, "llama.mlir"))


if __name__ == "__main__":
    main()
