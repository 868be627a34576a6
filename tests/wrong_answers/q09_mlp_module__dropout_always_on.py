"""Wrong: calls F.dropout without training=self.training, so dropout stays on in eval mode."""

from itertools import pairwise

import torch.nn.functional as F
from torch import nn


class MLP(nn.Module):
    def __init__(self, sizes, activation=nn.ReLU, dropout=0.0):
        super().__init__()
        sizes = list(sizes)
        if len(sizes) < 2 or any(size < 1 for size in sizes):
            raise ValueError("sizes must be at least two positive ints")
        if not 0.0 <= dropout < 1.0:
            raise ValueError("dropout must be in [0, 1)")
        self.linears = nn.ModuleList(nn.Linear(a, b) for a, b in pairwise(sizes))
        self.activations = nn.ModuleList(activation() for _ in sizes[1:-1])
        self.p = dropout

    def forward(self, x):
        for linear, activation in zip(self.linears[:-1], self.activations, strict=True):
            x = F.dropout(activation(linear(x)), self.p)  # training defaults to True
        return self.linears[-1](x)
