"""OrderedDict-built Sequential, ModuleDict.update, functools.reduce over the blocks."""

import functools
import itertools
from collections import OrderedDict
from collections.abc import Mapping, Sequence

import torch
from torch import nn
from torch.nn import functional as F


def make_mlp(sizes: Sequence[int]) -> nn.Sequential:
    sizes = list(sizes)
    if len(sizes) < 2:
        raise ValueError(f"make_mlp needs at least two sizes, got {sizes}")
    layers: OrderedDict[str, nn.Module] = OrderedDict()
    index = itertools.count()
    for fan_in, fan_out in itertools.pairwise(sizes):
        if layers:
            layers[str(next(index))] = nn.ReLU()
        layers[str(next(index))] = nn.Linear(fan_in, fan_out)
    return nn.Sequential(layers)


class MultiHead(nn.Module):
    def __init__(self, in_features: int, hidden: int, heads: Mapping[str, int]) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        self.heads = nn.ModuleDict()
        for name, n in heads.items():
            self.heads[name] = nn.Linear(hidden, n)

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        shared = self.trunk(x)
        return {name: head(shared) for name, head in self.heads.items()}


class ResidualStack(nn.Module):
    def __init__(self, dim: int, depth: int) -> None:
        super().__init__()
        if dim < 1 or depth < 0:
            raise ValueError(f"need dim >= 1 and depth >= 0, got dim={dim}, depth={depth}")
        self.blocks = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return functools.reduce(lambda h, block: h + F.relu(block(h)), self.blocks, x)
