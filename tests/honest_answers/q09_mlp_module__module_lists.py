"""ModuleLists, a name-mangled private attribute, __class__.__name__ in extra_repr."""

import math
from collections.abc import Callable, Sequence

import torch
from torch import nn


class MLP(nn.Module):
    def __init__(
        self,
        sizes: Sequence[int],
        activation: Callable[[], nn.Module] = nn.ReLU,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        sizes = list(sizes)
        if len(sizes) < 2 or min(sizes) < 1:
            raise ValueError(f"need two or more positive sizes, got {sizes}")
        if math.isnan(dropout) or not 0 <= dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.linears = nn.ModuleList()
        self.activations = nn.ModuleList()
        self.dropouts = nn.ModuleList()
        for i in range(len(sizes) - 1):
            self.linears.append(nn.Linear(sizes[i], sizes[i + 1]))
            if i < len(sizes) - 2:
                self.activations.append(activation())
                self.dropouts.append(nn.Dropout(dropout))
        self.__depth = len(self.linears)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        *hidden, last = self.linears
        for linear, act, drop in zip(hidden, self.activations, self.dropouts):
            x = drop(act(linear(x)))
        return last(x)

    def extra_repr(self) -> str:
        return f"{self.__class__.__name__} of {self.__depth} Linear layers"


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    chosen = (p for p in model.parameters() if p.requires_grad or not trainable_only)
    return sum(map(lambda p: p.numel(), chosen))
