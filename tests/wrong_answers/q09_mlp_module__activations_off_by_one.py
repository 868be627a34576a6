"""Wrong: makes one activation per hidden layer but applies the one made for the previous
layer (index i - 1), so the first hidden layer gets the last one made."""

from itertools import pairwise

from torch import nn


class MLP(nn.Module):
    def __init__(self, sizes, activation=nn.ReLU, dropout=0.0):
        super().__init__()
        sizes = list(sizes)
        if len(sizes) < 2 or any(size < 1 for size in sizes):
            raise ValueError(f"sizes must be at least two positive ints, got {sizes}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.linears = nn.ModuleList(nn.Linear(a, b) for a, b in pairwise(sizes))
        self.activations = nn.ModuleList(activation() for _ in sizes[2:])
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        for i, linear in enumerate(self.linears[:-1]):
            x = self.dropout(self.activations[i - 1](linear(x)))
        return self.linears[-1](x)
