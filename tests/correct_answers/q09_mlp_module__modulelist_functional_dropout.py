"""Correct: layers in an nn.ModuleList and dropout by F.dropout(training=self.training)."""

from collections.abc import Callable, Sequence
from itertools import pairwise

import torch
from torch import nn


class MLP(nn.Module):
    def __init__(
        self,
        sizes: Sequence[int],
        activation: Callable[[], nn.Module] = nn.ReLU,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()  # sets up the registries before any layer is assigned
        sizes = list(sizes)
        if len(sizes) < 2 or any(size < 1 for size in sizes):
            raise ValueError(f"sizes must be at least two positive ints, got {sizes}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.p = dropout
        self.linears = nn.ModuleList(nn.Linear(a, b) for a, b in pairwise(sizes))
        self.acts = nn.ModuleList([activation() for _ in range(len(sizes) - 2)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for linear, act in zip(self.linears[:-1], self.acts, strict=True):
            x = torch.nn.functional.dropout(act(linear(x)), self.p, training=self.training)
        return self.linears[-1](x)
