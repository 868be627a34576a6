"""One nn.Sequential built from an OrderedDict of named layers (a generator yields the
name/module pairs), nn.Dropout modules in it, forward a single call of it."""

from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence

import torch
from torch import nn


def _layers(
    sizes: list[int], activation: Callable[[], nn.Module], dropout: float
) -> Iterator[tuple[str, nn.Module]]:
    last = len(sizes) - 2
    for i in range(last + 1):
        yield f"linear{i}", nn.Linear(sizes[i], sizes[i + 1])
        if i != last:
            yield f"activation{i}", activation()
            yield f"dropout{i}", nn.Dropout(dropout)


class MLP(nn.Module):
    def __init__(
        self,
        sizes: Sequence[int],
        activation: Callable[[], nn.Module] = nn.ReLU,
        dropout: float = 0.0,
    ) -> None:
        sizes = list(sizes)  # a copy: the caller's sequence is left as it is
        if len(sizes) < 2 or not all(s > 0 for s in sizes):
            raise ValueError("sizes must be at least two positive ints")
        if dropout != dropout or dropout < 0 or dropout >= 1:
            raise ValueError("dropout must be in [0, 1)")
        super().__init__()
        self.net = nn.Sequential(OrderedDict(_layers(sizes, activation, dropout)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)
