"""Modules whose gradients PyTorch treats specially: stopped gradients,
frozen and unused parameters, an embedding's padding row, BatchNorm's
running statistics, GELU's tanh approximation (gradient_flow.py trains
them with prec and with PyTorch)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, T, D, V = 4, 8, 16, 16


class Reversed(torch.autograd.Function):
    """The identity with its gradient negated (gradient reversal)."""

    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return -g


class Flow(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.emb = nn.Embedding(V, D)
        self.fc1 = nn.Linear(D, 32)
        self.fc2 = nn.Linear(32, D)
        self.register_buffer("shift", torch.linspace(-1, 1, D))
        if kind == "frozen":
            self.fc1.weight.requires_grad_(False)
            self.extra = nn.Linear(D, D)
        if kind == "all_frozen":
            self.requires_grad_(False)

    def forward(self, idx, y):
        h = self.emb(idx)
        if self.kind == "detach":
            h = self.fc1(h)
            h = h + (torch.tanh(h) - h).detach()
        elif self.kind == "no_grad":
            with torch.no_grad():
                s = self.fc1(h).std()
            h = self.fc1(h) / s
        elif self.kind == "detach_in_place":
            h = self.fc1(h)
            z = h * 1
            z.detach_()
            h = h + z
        elif self.kind == "function":
            h = Reversed.apply(self.fc1(h))
        elif self.kind == "detach_data":
            # Stopped gradients of inputs and buffers change no gradient.
            y = y / y.std().detach()
            h = self.fc1(h + self.shift.detach())
        else:
            h = self.fc1(h)
        return F.mse_loss(self.fc2(torch.tanh(h)), y)


def flow(kind="plain"):
    return Flow(kind), (torch.zeros(B, T, dtype=torch.long), torch.randn(B, T, D))


class Padded(nn.Module):
    """Token 3 pads; the head is tied to the embedding, as nanoGPT's is."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D, padding_idx=3)
        self.fc = nn.Linear(D, D)
        self.head = nn.Linear(D, V, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, idx):
        return self.head(torch.tanh(self.fc(self.emb(idx))))


class PaddedUntied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D, padding_idx=3)
        self.fc = nn.Linear(D, D)

    def forward(self, idx, y):
        return F.mse_loss(self.fc(self.emb(idx)), y)


def padded(tied=1):
    if tied:
        return Padded(), (torch.zeros(B, T, dtype=torch.long),)
    return PaddedUntied(), (torch.zeros(B, T, dtype=torch.long), torch.randn(B, T, D))


class Normed(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(D, 32)
        self.bn = nn.BatchNorm1d(32)
        self.drop = nn.Dropout(0.1)
        self.fc2 = nn.Linear(32, D)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.bn(self.fc1(x)))))


def batchnorm():
    model = Normed()
    # Running statistics far from a fresh forward's batch statistics.
    model.bn.running_mean.fill_(0.5)
    model.bn.running_var.fill_(2.0)
    return model, (torch.randn(B, D),)


def gelu_tanh():
    return nn.Sequential(nn.Linear(D, 64), nn.GELU(approximate="tanh"), nn.Linear(64, D)), \
        (torch.randn(B, D),)
