"""Wrong: checks dropout < 0 or dropout >= 1, which a NaN dropout passes (and nn.Dropout
takes it too)."""

from itertools import pairwise

from torch import nn


class MLP(nn.Module):
    def __init__(self, sizes, activation=nn.ReLU, dropout=0.0):
        super().__init__()
        sizes = list(sizes)
        if len(sizes) < 2 or any(size < 1 for size in sizes):
            raise ValueError(f"sizes must be at least two positive ints, got {sizes}")
        if dropout < 0 or dropout >= 1:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        layers = []
        for fan_in, fan_out in pairwise(sizes[:-1]):
            layers += [nn.Linear(fan_in, fan_out), activation(), nn.Dropout(dropout)]
        layers.append(nn.Linear(sizes[-2], sizes[-1]))
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)
