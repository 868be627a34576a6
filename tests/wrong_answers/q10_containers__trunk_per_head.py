"""Wrong: runs the trunk again for every head instead of once."""

from collections.abc import Mapping, Sequence
from itertools import pairwise

import torch
from torch import nn


def make_mlp(sizes: Sequence[int]) -> nn.Sequential:
    if len(sizes) < 2:
        raise ValueError(f"sizes needs at least two entries, got {list(sizes)}")
    layers: list[nn.Module] = []
    for fan_in, fan_out in pairwise(sizes):
        layers += [nn.Linear(fan_in, fan_out), nn.ReLU()]
    # Drop the trailing ReLU: the last layer's output (logits, regression values) is raw.
    return nn.Sequential(*layers[:-1])


class MultiHead(nn.Module):
    def __init__(self, in_features: int, hidden: int, heads: Mapping[str, int]) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        # ModuleDict registers each head under its name (keys "heads.<name>.*") and keeps
        # the insertion order; a plain dict would hide the heads from parameters() and .to().
        self.heads = nn.ModuleDict({name: nn.Linear(hidden, n) for name, n in heads.items()})

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        return {name: head(self.trunk(x)) for name, head in self.heads.items()}


class ResidualStack(nn.Module):
    def __init__(self, dim: int, depth: int) -> None:
        super().__init__()
        if dim < 1 or depth < 0:
            raise ValueError(f"need dim >= 1 and depth >= 0, got dim={dim}, depth={depth}")
        # One new Linear per block; `[nn.Linear(dim, dim)] * depth` would repeat one layer.
        self.blocks = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = x + torch.relu(block(x))
        return x
