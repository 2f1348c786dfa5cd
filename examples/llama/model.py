"""A Llama-style language model in plain PyTorch: RMSNorm, rotary position
embeddings, causal scaled-dot-product attention, a SwiGLU MLP, an untied
output projection. forward(idx) returns the logits; the loss
(cross-entropy on the next token) is the trainer's.

examples/llama/README.md trains it with prec and with FSDP2.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.attn_norm = RMSNorm(dim)
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.ffn_norm = RMSNorm(dim)
        hidden = 8 * dim // 3
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)

    def forward(self, x, cos, sin):
        b, t, c = x.shape
        h = self.attn_norm(x)
        shape = (b, t, self.heads, c // self.heads)
        q, k, v = (w(h).view(shape).transpose(1, 2) for w in (self.wq, self.wk, self.wv))
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.wo(y.transpose(1, 2).reshape(b, t, c))
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Llama(nn.Module):
    def __init__(self, vocab, dim, heads, seq, layers):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab, bias=False)
        for name, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02)
        half = dim // heads // 2
        freqs = 1.0 / (10000 ** (torch.arange(0, half, dtype=torch.float32) / half))
        angles = torch.outer(torch.arange(seq, dtype=torch.float32), freqs)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos()[None, None])
        self.register_buffer("sin", angles.sin()[None, None])

    def forward(self, idx):
        x = self.embed(idx)
        cos, sin = self.cos.to(x.dtype), self.sin.to(x.dtype)
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.output(self.norm(x))


def llama(vocab=256, dim=64, heads=4, seq=32, layers=4, batch=4):
    """The module and its example inputs: `batch` windows of `seq` byte
    tokens per rank."""
    return Llama(vocab, dim, heads, seq, layers), (torch.zeros(batch, seq, dtype=torch.long),)


def blocks(model):
    """The submodules FSDP2 wraps one by one (fully_shard per block)."""
    return list(model.layers)
