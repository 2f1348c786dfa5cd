"""Modules the frontend must refuse with a message that says what to change."""
import torch
import torch.nn as nn


class DataDependent(nn.Module):
    """Python control flow on a tensor's value: torch.export cannot trace it."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        if y.sum() > 0:
            return y * 2
        return y


def data_dependent():
    return DataDependent(), (torch.randn(4, 8),)


class Sorted(nn.Module):
    """torch.sort: exported fine, but prec has no derivative for it."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.sort(self.fc(x), dim=-1).values


def sorted_model():
    return Sorted(), (torch.randn(4, 8),)


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 8)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def small():
    return Small(), (torch.randn(4, 8),)


class Median(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(x) - torch.median(self.fc(x), dim=-1, keepdim=True).values


def median():
    return Median(), (torch.randn(4, 8),)


class Floor(nn.Module):
    """torch.floor: exported to linalg, but prec has no gradient rule for it."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.floor(self.fc(x)) + self.fc(x)


def floor():
    return Floor(), (torch.randn(4, 8),)


def bare():
    """The module alone: its inputs must be given with --input."""
    return Small()


class Convolution(nn.Module):
    """An nn.Conv1d: prec has no gradient rule for its convolution, which
    torch-mlir's locations put in torch's conv.py, called from here."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 4, 3)

    def forward(self, x):
        return self.conv(x).sum(dim=-1)


def convolution():
    return Convolution(), (torch.randn(2, 4, 8),)
