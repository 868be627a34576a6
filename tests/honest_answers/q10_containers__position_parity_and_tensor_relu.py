"""make_mlp by position parity (even positions Linear, odd ReLU) in one comprehension, the heads
built by a dict comprehension handed to nn.ModuleDict, the trunk run as F.linear on its weight and
relu, blocks applied with Tensor.add and Tensor.relu."""

from collections.abc import Mapping, Sequence

import torch
import torch.nn.functional as F
from torch import nn


def make_mlp(sizes: Sequence[int]) -> nn.Sequential:
    n = len(sizes)
    if n < 2:
        raise ValueError(f"make_mlp needs at least two sizes, got {n}")
    return nn.Sequential(
        *(
            nn.Linear(sizes[i // 2], sizes[i // 2 + 1]) if i % 2 == 0 else nn.ReLU()
            for i in range(2 * n - 3)
        )
    )


class MultiHead(nn.Module):
    def __init__(self, in_features: int, hidden: int, heads: Mapping[str, int]) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        self.heads = nn.ModuleDict({name: nn.Linear(hidden, size) for name, size in heads.items()})

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        linear = self.trunk[0]
        features = F.linear(x, linear.weight, linear.bias).relu()
        return {name: head(features) for name, head in self.heads.items()}


class ResidualStack(nn.Module):
    def __init__(self, dim: int, depth: int) -> None:
        super().__init__()
        if dim < 1 or depth < 0:
            raise ValueError(f"need dim >= 1 and depth >= 0, got dim={dim}, depth={depth}")
        self.blocks = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = x.add(block(x).relu())
        return x
