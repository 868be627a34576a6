"""Linear and ReLU interleaved by chain.from_iterable, the trailing ReLU sliced off the Sequential;
heads by dict(zip), a walrus while loop over an iterator of blocks."""

import itertools
from collections.abc import Mapping, Sequence

import torch
from torch import nn


def make_mlp(sizes: Sequence[int]) -> nn.Sequential:
    sizes = list(sizes)
    if len(sizes) < 2:
        raise ValueError("sizes must hold at least in_features and out_features")
    pairs = itertools.pairwise(sizes)
    # Every pair gives (Linear, ReLU); the generator builds them in order, then the
    # Sequential slice drops the last ReLU (slicing keeps the "0", "1", ... keys).
    layers = itertools.chain.from_iterable((nn.Linear(a, b), nn.ReLU()) for a, b in pairs)
    full = nn.Sequential(*layers)
    head = full[:-1]
    assert isinstance(head, nn.Sequential)  # a slice of a Sequential is a Sequential
    return head


class MultiHead(nn.Module):
    def __init__(self, in_features: int, hidden: int, heads: Mapping[str, int]) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        names = list(heads)
        self.heads = nn.ModuleDict(dict(zip(names, [nn.Linear(hidden, heads[k]) for k in names])))

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        shared = x
        for layer in self.trunk:
            shared = layer(shared)
        return dict((name, head(shared)) for name, head in self.heads.items())


class ResidualStack(nn.Module):
    def __init__(self, dim: int, depth: int) -> None:
        super().__init__()
        if not (dim >= 1 and depth >= 0):
            raise ValueError(f"need dim >= 1 and depth >= 0, got dim={dim}, depth={depth}")
        self.blocks = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        it = iter(self.blocks)
        while (block := next(it, None)) is not None:
            x = x + torch.nn.functional.relu(block(x))
        return x
