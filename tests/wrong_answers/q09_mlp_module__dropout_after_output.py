"""Wrong: applies dropout after the last Linear too, so in training mode the output is not
returned as is."""

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
        layers: list[nn.Module] = []
        for fan_in, fan_out in pairwise(sizes[:-1]):
            layers += [nn.Linear(fan_in, fan_out), activation(), nn.Dropout(dropout)]
        layers += [nn.Linear(sizes[-2], sizes[-1]), nn.Dropout(dropout)]
        # nn.Sequential registers every layer, so parameters(), .to() and .eval() reach them;
        # nn.Dropout follows self.training, so eval() switches it off.
        self.layers = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)
