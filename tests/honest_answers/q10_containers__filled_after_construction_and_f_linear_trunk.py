"""Containers filled after construction (Sequential.append, ModuleDict.update with
pairs, ModuleList.extend); MultiHead's trunk run as F.linear plus Tensor.relu."""

from collections.abc import Mapping, Sequence
from itertools import pairwise

import torch
import torch.nn.functional as F
from torch import nn


def make_mlp(sizes: Sequence[int]) -> nn.Sequential:
    sizes = list(sizes)
    if len(sizes) < 2:
        raise ValueError(f"make_mlp needs at least two sizes, got {sizes!r}")
    model = nn.Sequential()
    for i, (n_in, n_out) in enumerate(pairwise(sizes)):
        if i:
            model.append(nn.ReLU())
        model.append(nn.Linear(n_in, n_out))
    return model


class MultiHead(nn.Module):
    def __init__(self, in_features: int, hidden: int, heads: Mapping[str, int]) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        self.heads = nn.ModuleDict()
        # A list of pairs keeps the order; each name goes through ModuleDict's own checks.
        self.heads.update([(name, nn.Linear(hidden, n)) for name, n in heads.items()])

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        linear = self.trunk[0]
        features = F.linear(x, linear.weight, linear.bias).relu()
        return {name: head(features) for name, head in self.heads.items()}


class ResidualStack(nn.Module):
    def __init__(self, dim: int, depth: int) -> None:
        if dim < 1:
            raise ValueError(f"dim must be >= 1, got {dim}")
        if depth < 0:
            raise ValueError(f"depth must be >= 0, got {depth}")
        super().__init__()
        self.blocks = nn.ModuleList()
        self.blocks.extend(nn.Linear(dim, dim) for _ in range(depth))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = torch.add(x, torch.relu(block(x)))
        return x
