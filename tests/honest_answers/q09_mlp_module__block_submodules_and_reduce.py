"""one _HiddenBlock submodule per hidden layer plus a head, applied with functools.reduce."""

import functools
import itertools
import math
from collections.abc import Callable, Sequence

import torch
from torch import nn


class _HiddenBlock(nn.Module):
    """Linear, then the activation, then dropout."""

    def __init__(self, fan_in: int, fan_out: int, act: nn.Module, p: float) -> None:
        super().__init__()
        self.linear = nn.Linear(fan_in, fan_out)
        self.act = act
        self.drop = nn.Dropout(p)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(self.act(self.linear(x)))


class MLP(nn.Module):
    def __init__(
        self,
        sizes: Sequence[int],
        activation: Callable[[], nn.Module] = nn.ReLU,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        sizes = list(sizes)
        if len(sizes) < 2:
            raise ValueError(f"sizes needs at least two entries, got {sizes}")
        if any(n <= 0 for n in sizes):
            raise ValueError(f"every size must be positive, got {sizes}")
        if math.isnan(dropout) or not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        pairs = list(itertools.pairwise(sizes))
        self.blocks = nn.ModuleList(
            _HiddenBlock(fan_in, fan_out, activation(), dropout) for fan_in, fan_out in pairs[:-1]
        )
        self.head = nn.Linear(*pairs[-1])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = functools.reduce(lambda h, block: block(h), self.blocks, x)
        return self.head(hidden)
