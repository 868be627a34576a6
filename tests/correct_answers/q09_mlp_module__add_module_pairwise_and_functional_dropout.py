"""Layers added by add_module under f-string names over itertools.pairwise; F.dropout."""

import math
from collections.abc import Callable, Sequence
from itertools import pairwise

import torch
import torch.nn.functional as F
from torch import nn


class MLP(nn.Module):
    def __init__(
        self,
        sizes: Sequence[int],
        activation: Callable[[], nn.Module] = nn.ReLU,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        sizes = list(sizes)
        if len(sizes) < 2 or any(n <= 0 for n in sizes):
            raise ValueError(f"sizes needs two or more positive entries, got {sizes}")
        if math.isnan(dropout) or not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.p = float(dropout)
        self.depth = len(sizes) - 1
        for i, (fan_in, fan_out) in enumerate(pairwise(sizes)):
            self.add_module(f"linear{i}", nn.Linear(fan_in, fan_out))
            if i < self.depth - 1:
                self.add_module(f"act{i}", activation())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        modules = dict(self.named_children())
        for i in range(self.depth):
            x = modules[f"linear{i}"](x)
            if i < self.depth - 1:
                x = modules[f"act{i}"](x)
                x = F.dropout(x, self.p, training=self.training)
        return x

    def extra_repr(self) -> str:
        return f"p={self.p}"
