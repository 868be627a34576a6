"""Correct: an ordered dict of named layers in one nn.Sequential."""

from collections import OrderedDict

import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, sizes, activation=nn.ReLU, dropout=0.0):
        super().__init__()
        sizes = list(sizes)
        if len(sizes) < 2 or min(sizes) <= 0:
            raise ValueError("sizes: at least two positive ints")
        if dropout != dropout or dropout < 0 or dropout >= 1:
            raise ValueError("dropout must be in [0, 1)")
        named = OrderedDict()
        last = len(sizes) - 2
        for i in range(len(sizes) - 1):
            named[f"linear{i}"] = nn.Linear(sizes[i], sizes[i + 1])
            if i < last:
                named[f"act{i}"] = activation()
                named[f"drop{i}"] = nn.Dropout(p=dropout)
        self.net = nn.Sequential(named)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)
