"""Wrong: applies the activation after the last Linear too, so outputs can't be negative."""

from itertools import pairwise

from torch import nn


class MLP(nn.Module):
    def __init__(self, sizes, activation=nn.ReLU, dropout=0.0):
        super().__init__()
        sizes = list(sizes)
        if len(sizes) < 2 or any(size < 1 for size in sizes):
            raise ValueError("sizes must be at least two positive ints")
        if not 0.0 <= dropout < 1.0:
            raise ValueError("dropout must be in [0, 1)")
        layers = []
        for fan_in, fan_out in pairwise(sizes):
            layers += [nn.Linear(fan_in, fan_out), activation(), nn.Dropout(dropout)]
        self.layers = nn.Sequential(*layers[:-1])

    def forward(self, x):
        return self.layers(x)
