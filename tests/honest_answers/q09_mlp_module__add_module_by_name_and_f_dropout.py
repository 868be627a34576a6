"""Layers registered one by one with add_module under fc{i}/act{i} names over
itertools.pairwise, looked up by name in forward, dropout as F.dropout with self.training."""

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
        widths = list(sizes)
        if len(widths) < 2:
            raise ValueError(f"sizes needs at least two entries, got {widths}")
        if any(w <= 0 for w in widths):
            raise ValueError(f"every size must be positive, got {widths}")
        if not 0.0 <= dropout < 1.0:  # False for NaN too
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.p = float(dropout)
        self.depth = len(widths) - 1
        for i, (fan_in, fan_out) in enumerate(pairwise(widths)):
            self.add_module(f"fc{i}", nn.Linear(fan_in, fan_out))
            if i < self.depth - 1:
                self.add_module(f"act{i}", activation())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i in range(self.depth - 1):
            x = getattr(self, f"act{i}")(getattr(self, f"fc{i}")(x))
            x = F.dropout(x, p=self.p, training=self.training)
        return getattr(self, f"fc{self.depth - 1}")(x)
