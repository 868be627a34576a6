"""Sequential from a flat list, trunk layer by layer, F.linear blocks."""

from collections.abc import Mapping, Sequence

import torch
import torch.nn.functional as F
from torch import nn


def _layers(sizes: Sequence[int]) -> list[nn.Module]:
    layers: list[nn.Module] = []
    for i, d_out in enumerate(sizes[1:]):
        if layers:
            layers.append(nn.ReLU())
        layers.append(nn.Linear(sizes[i], d_out))
    return layers


def make_mlp(sizes: Sequence[int]) -> nn.Sequential:
    if len(sizes) < 2:
        raise ValueError("sizes needs in_features and out_features")
    return nn.Sequential(*_layers(list(sizes)))


class MultiHead(nn.Module):
    def __init__(self, in_features: int, hidden: int, heads: Mapping[str, int]) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        self.heads = nn.ModuleDict({name: nn.Linear(hidden, n) for name, n in heads.items()})

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        linear = self.trunk[0]
        h = F.relu(F.linear(x, linear.weight, linear.bias))
        return {name: F.linear(h, head.weight, head.bias) for name, head in self.heads.items()}


class ResidualStack(nn.Module):
    def __init__(self, dim: int, depth: int) -> None:
        if dim < 1 or depth < 0:
            raise ValueError(f"need dim >= 1 and depth >= 0, got dim={dim}, depth={depth}")
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = x + F.relu(F.linear(x, block.weight, block.bias))
        return x
