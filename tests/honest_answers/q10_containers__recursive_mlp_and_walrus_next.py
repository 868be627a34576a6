"""make_mlp built recursively (the MLP for sizes[:-1], then a ReLU and the last Linear), heads
filled by ModuleDict.update from a generator, the output dict zipped from keys and mapped heads,
blocks appended in a while loop and applied through an explicit iterator with torch.add."""

from collections.abc import Mapping, Sequence

import torch
import torch.nn.functional as F
from torch import nn


def make_mlp(sizes: Sequence[int]) -> nn.Sequential:
    if len(sizes) < 2:
        raise ValueError(f"make_mlp needs at least two sizes, got {len(sizes)}")
    if len(sizes) == 2:
        return nn.Sequential(nn.Linear(sizes[0], sizes[1]))
    # The earlier Linears are created first, by the recursive call, so the draws keep their order.
    model = make_mlp(sizes[:-1])
    model.append(nn.ReLU())
    model.append(nn.Linear(sizes[-2], sizes[-1]))
    return model


class MultiHead(nn.Module):
    def __init__(self, in_features: int, hidden: int, heads: Mapping[str, int]) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        self.heads = nn.ModuleDict()
        self.heads.update((name, nn.Linear(hidden, n)) for name, n in heads.items())

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        features = self.trunk(x)
        outputs = map(lambda head: head(features), self.heads.values())
        return dict(zip(self.heads.keys(), outputs))


class ResidualStack(nn.Module):
    def __init__(self, dim: int, depth: int) -> None:
        super().__init__()
        if dim < 1:
            raise ValueError(f"dim must be at least 1, got {dim}")
        if depth < 0:
            raise ValueError(f"depth must be non-negative, got {depth}")
        self.blocks = nn.ModuleList()
        while len(self.blocks) < depth:
            self.blocks.append(nn.Linear(dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        blocks = iter(self.blocks)
        while (block := next(blocks, None)) is not None:
            x = torch.add(x, F.relu(block(x)))
        return x
