"""Correct: MultiHead computes the trunk once as relu(F.linear(x, W, b)) with the trunk
Linear's own parameters (and the heads with F.linear), instead of calling the modules."""

from collections.abc import Mapping, Sequence
from itertools import pairwise

import torch
import torch.nn.functional as F
from torch import nn


def make_mlp(sizes: Sequence[int]) -> nn.Sequential:
    """An nn.Sequential of Linear layers with a ReLU between each pair of them."""
    if len(sizes) < 2:
        raise ValueError("sizes: at least two")
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(pairwise(sizes)):
        layers += [nn.ReLU(), nn.Linear(a, b)] if i else [nn.Linear(a, b)]
    return nn.Sequential(*layers)


class MultiHead(nn.Module):
    """A shared trunk with one Linear head per task."""

    def __init__(self, in_features: int, hidden: int, heads: Mapping[str, int]) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        self.heads = nn.ModuleDict()
        self.heads.update({k: nn.Linear(hidden, v) for k, v in heads.items()})

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        lin = self.trunk[0]
        h = F.relu(F.linear(x, lin.weight, lin.bias))
        return {k: F.linear(h, head.weight, head.bias) for k, head in self.heads.items()}


class ResidualStack(nn.Module):
    """`depth` residual blocks applied in turn: x = x + relu(block(x))."""

    def __init__(self, dim: int, depth: int) -> None:
        super().__init__()
        if dim < 1 or depth < 0:
            raise ValueError("dim >= 1 and depth >= 0 required")
        self.blocks = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = x
        for blk in self.blocks:
            out = out + blk(out).relu()
        return out
