"""itertools.pairwise and chain for the layers; functools.reduce over the blocks."""

from collections.abc import Mapping, Sequence
from functools import reduce
from itertools import chain, pairwise

import torch
from torch import nn
from torch.nn import functional as F


def make_mlp(sizes: Sequence[int]) -> nn.Sequential:
    if len(sizes) < 2:
        raise ValueError(f"make_mlp needs at least two sizes, got {list(sizes)}")
    # Each Linear followed by a ReLU, then the trailing ReLU dropped.
    layers = list(chain.from_iterable((nn.Linear(a, b), nn.ReLU()) for a, b in pairwise(sizes)))
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
        if dim < 1:
            raise ValueError(f"dim must be at least 1, got {dim}")
        if depth < 0:
            raise ValueError(f"depth must not be negative, got {depth}")
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))

    @staticmethod
    def _residual(x: torch.Tensor, block: nn.Module) -> torch.Tensor:
        return x + F.relu(block(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return reduce(self._residual, self.blocks, x)
