"""make_mlp names its positions in an OrderedDict ("0", "1", ...); MultiHead calls the
heads by key; ResidualStack indexes its blocks in a while loop and adds with Tensor.add."""

from collections import OrderedDict
from collections.abc import Mapping, Sequence

import torch
from torch import nn


def make_mlp(sizes: Sequence[int]) -> nn.Sequential:
    if len(sizes) < 2:
        raise ValueError("sizes needs an input and an output size")
    layers: OrderedDict[str, nn.Module] = OrderedDict()
    position = 0
    for k in range(len(sizes) - 1):
        layers[str(position)] = nn.Linear(sizes[k], sizes[k + 1])
        position += 1
        if k < len(sizes) - 2:
            layers[str(position)] = nn.ReLU()
            position += 1
    return nn.Sequential(layers)


class MultiHead(nn.Module):
    def __init__(self, in_features: int, hidden: int, heads: Mapping[str, int]) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        self.heads = nn.ModuleDict()
        for name in heads:
            self.heads[name] = nn.Linear(hidden, heads[name])

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        shared = self.trunk(x)
        out: dict[str, torch.Tensor] = {}
        for name in self.heads:  # the ModuleDict's keys, in order
            out[name] = self.heads[name](shared)
        return out


class ResidualStack(nn.Module):
    def __init__(self, dim: int, depth: int) -> None:
        if dim < 1 or depth < 0:
            raise ValueError(f"need dim >= 1 and depth >= 0, got dim={dim}, depth={depth}")
        super().__init__()
        blocks = []
        for _ in range(depth):
            blocks.append(nn.Linear(dim, dim))
        self.blocks = nn.ModuleList(blocks)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        i = 0
        while i < len(self.blocks):
            x = x.add(nn.functional.relu(self.blocks[i](x)))
            i += 1
        return x
