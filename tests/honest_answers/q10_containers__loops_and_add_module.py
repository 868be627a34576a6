"""Explicit loops, add_module and a ModuleDict filled item by item."""

from collections.abc import Mapping, Sequence

import torch
from torch import nn


def make_mlp(sizes: Sequence[int]) -> nn.Sequential:
    sizes = list(sizes)
    if len(sizes) < 2:
        raise ValueError(f"need at least two sizes, got {len(sizes)}")
    mlp = nn.Sequential()
    index = 0
    for i in range(len(sizes) - 1):
        mlp.add_module(str(index), nn.Linear(sizes[i], sizes[i + 1]))
        index += 1
        if i < len(sizes) - 2:
            mlp.add_module(str(index), nn.ReLU())
            index += 1
    return mlp


class MultiHead(nn.Module):
    def __init__(self, in_features: int, hidden: int, heads: Mapping[str, int]) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        self.heads = nn.ModuleDict()
        for name, n in heads.items():
            self.heads[name] = nn.Linear(hidden, n)

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        features = self.trunk(x)
        outputs: dict[str, torch.Tensor] = {}
        for name in self.heads:
            outputs[name] = self.heads[name](features)
        return outputs


class ResidualStack(nn.Module):
    def __init__(self, dim: int, depth: int) -> None:
        super().__init__()
        if dim < 1:
            raise ValueError(f"dim must be >= 1, got {dim}")
        if depth < 0:
            raise ValueError(f"depth must be >= 0, got {depth}")
        self.blocks = nn.ModuleList()
        for _ in range(depth):
            self.blocks.append(nn.Linear(dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = x
        for i in range(len(self.blocks)):
            out = out + torch.relu(self.blocks[i](out))
        return out
