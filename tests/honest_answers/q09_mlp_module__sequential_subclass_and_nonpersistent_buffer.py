"""An nn.Sequential subclass filled by add_module, sizes kept in a non-persistent buffer."""

import itertools
import math
from collections.abc import Callable, Sequence

import torch
from torch import nn


class MLP(nn.Sequential):
    def __init__(
        self,
        sizes: Sequence[int],
        activation: Callable[[], nn.Module] = nn.ReLU,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        sizes = [int(s) for s in sizes]
        if len(sizes) < 2 or any(s <= 0 for s in sizes):
            raise ValueError(f"sizes must be two or more positive ints, got {sizes!r}")
        if math.isnan(dropout) or not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
        self.dropout_p = float(dropout)
        self.register_buffer("sizes", torch.tensor(sizes), persistent=False)
        last = len(sizes) - 2
        for i, (fan_in, fan_out) in enumerate(itertools.pairwise(sizes)):
            self.add_module(f"linear{i}", nn.Linear(fan_in, fan_out))
            if i < last:
                self.add_module(f"act{i}", activation())
                self.add_module(f"drop{i}", nn.Dropout(dropout))

    def extra_repr(self) -> str:
        return f"dropout={self.dropout_p}"
