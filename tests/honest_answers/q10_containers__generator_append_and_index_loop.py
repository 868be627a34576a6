"""Sequential.append fed by a generator of layers, heads set one by one on an empty ModuleDict,
the trunk as F.linear on its weight, an index loop with relu().add."""

from collections.abc import Iterator, Mapping, Sequence

import torch
import torch.nn.functional as F
from torch import nn


def _layers(sizes: Sequence[int]) -> Iterator[nn.Module]:
    # Lazily yield Linear, ReLU, Linear, ...: each Linear is constructed when the consumer asks
    # for it, so the draws happen in order.
    last = len(sizes) - 2
    for i in range(last + 1):
        yield nn.Linear(sizes[i], sizes[i + 1])
        if i != last:
            yield nn.ReLU()


def make_mlp(sizes: Sequence[int]) -> nn.Sequential:
    if len(sizes) < 2:
        raise ValueError(f"sizes needs at least two entries, got {len(sizes)}")
    seq = nn.Sequential()
    for layer in _layers(sizes):
        seq.append(layer)
    return seq


class MultiHead(nn.Module):
    def __init__(self, in_features: int, hidden: int, heads: Mapping[str, int]) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        self.heads = nn.ModuleDict()
        for name, n in heads.items():
            # ModuleDict.__setitem__ -> add_module: raises KeyError on a bad name.
            self.heads[name] = nn.Linear(hidden, n)

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        lin = self.trunk[0]
        assert isinstance(lin, nn.Linear)
        h = F.relu(F.linear(x, lin.weight, lin.bias))
        out: dict[str, torch.Tensor] = {}
        for name in self.heads:
            out[name] = self.heads[name](h)
        return out


class ResidualStack(nn.Module):
    def __init__(self, dim: int, depth: int) -> None:
        if dim < 1:
            raise ValueError(f"dim must be >= 1, got {dim}")
        if depth < 0:
            raise ValueError(f"depth must be >= 0, got {depth}")
        super().__init__()
        self.blocks = nn.ModuleList()
        for _ in range(depth):
            self.blocks.append(nn.Linear(dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i in range(len(self.blocks)):
            x = torch.relu(self.blocks[i](x)).add(x)
        return x
