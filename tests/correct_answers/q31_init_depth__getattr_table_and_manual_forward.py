"""Activations named by a getattr table, stds in a dict of lambdas, a layer-by-layer run."""

import math
from collections.abc import Callable
from itertools import chain

import torch
from torch import nn

_ACTIVATIONS = {"relu": "ReLU", "tanh": "Tanh"}
_STDS: dict[str, Callable[[int], float]] = {
    "normal": lambda width: 1.0,
    "xavier": lambda width: math.sqrt(2.0 / (width + width)),
    "kaiming": lambda width: math.sqrt(2.0 / width),
}


def deep_stack(
    depth: int,
    width: int,
    activation: str,
    init: str,
    *,
    device: torch.device | str | None = None,
) -> nn.Sequential:
    if activation not in _ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}; known: {sorted(_ACTIVATIONS)}")
    if init not in _STDS:
        raise ValueError(f"unknown init {init!r}; known: {sorted(_STDS)}")
    if depth < 1 or width < 1:
        raise ValueError(f"depth and width must be >= 1, got {depth} and {width}")
    make_activation = getattr(nn, _ACTIVATIONS[activation])
    std = _STDS[init](width)

    def linear() -> nn.Linear:
        layer = nn.Linear(width, width, bias=False, device=device)
        nn.init.normal_(layer.weight, mean=0.0, std=std)
        return layer

    return nn.Sequential(*chain.from_iterable((linear(), make_activation()) for _ in range(depth)))


@torch.no_grad()
def activation_stds(stack: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    stds = []
    h = x
    for module in stack:
        h = module(h)
        if not isinstance(module, nn.Linear):
            stds.append(h.std())
    return torch.stack(stds) if stds else x.new_empty(0)


def relu_std_ratio(width: int, weight_std: float) -> float:
    # Var out = width * std^2 * E[relu(z)^2] = width * std^2 * Var z / 2.
    return weight_std * math.sqrt(width / 2)
