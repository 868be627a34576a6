"""Layers built with itertools.pairwise and chain, a ModuleDict from a comprehension."""

import itertools
from collections.abc import Mapping, Sequence

import torch
from torch import nn


def make_mlp(sizes: Sequence[int]) -> nn.Sequential:
    sizes = list(sizes)
    if len(sizes) < 2:
        raise ValueError("need at least two sizes")
    linears = [nn.Linear(a, b) for a, b in itertools.pairwise(sizes)]
    layers = list(itertools.chain.from_iterable((linear, nn.ReLU()) for linear in linears))
    return nn.Sequential(*layers[:-1])


class MultiHead(nn.Module):
    def __init__(self, in_features: int, hidden: int, heads: Mapping[str, int]) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        self.heads = nn.ModuleDict({name: nn.Linear(hidden, n) for name, n in heads.items()})

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        shared = self.trunk(x)
        return {name: head(shared) for name, head in self.heads.items()}


class ResidualStack(nn.Module):
    def __init__(self, dim: int, depth: int) -> None:
        super().__init__()
        if dim < 1 or depth < 0:
            raise ValueError(f"need dim >= 1 and depth >= 0, got {dim} and {depth}")
        self.blocks = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = x + torch.relu(block(x))
        return x
