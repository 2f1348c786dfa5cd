"""A nanoGPT-style language model in plain PyTorch: token and position
embeddings, pre-norm blocks of causal self-attention and a GELU MLP, a final
LayerNorm and an lm_head tied to the token embedding. forward(idx) returns
the logits; the loss (cross-entropy on the next token) is the trainer's.

`python -m prec_torch examples/nanogpt/model.py:nanogpt --loss cross_entropy
...` trains it with prec (examples/nanogpt/README.md); the FSDP2 comparison
(test/Torch/) trains the same module with PyTorch.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, heads, seq):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(dim, 3 * dim)
        self.c_proj = nn.Linear(dim, dim)
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq)).view(1, 1, seq, seq))

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(c, dim=2)
        shape = (b, t, self.heads, c // self.heads)
        q, k, v = (y.view(shape).transpose(1, 2) for y in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self, dim, heads, seq):
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads, seq)
        self.ln_2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.proj = nn.Linear(4 * dim, dim)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.proj(F.gelu(self.fc(self.ln_2(x)), approximate="tanh"))


class NanoGPT(nn.Module):
    def __init__(self, vocab, dim, heads, seq, layers):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(seq, dim)
        self.h = nn.ModuleList(Block(dim, heads, seq) for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied
        for name, p in self.named_parameters():
            if name.endswith("weight") and p.dim() == 2:
                nn.init.normal_(p, std=0.02)

    def forward(self, idx):
        t = idx.size(1)
        x = self.wte(idx) + self.wpe(torch.arange(t, dtype=torch.long))
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def nanogpt(vocab=256, dim=64, heads=4, seq=32, layers=4, batch=4):
    """The module and its example inputs: `batch` windows of `seq` byte
    tokens per rank."""
    model = NanoGPT(vocab, dim, heads, seq, layers)
    return model, (torch.zeros(batch, seq, dtype=torch.long),)


def blocks(model):
    """The submodules FSDP2 wraps one by one (fully_shard per block)."""
    return list(model.h)
