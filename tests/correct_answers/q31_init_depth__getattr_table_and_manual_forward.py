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


def _start(init: str, rows: int, cols: int, like: torch.Tensor) -> torch.Tensor:
    fills: dict[str, Callable[[], torch.Tensor]] = {
        "constant": lambda: like.new_full((rows, cols), 0.5),
        "zeros": lambda: like.new_zeros((rows, cols)),
        "xavier": lambda: nn.init.xavier_normal_(like.new_empty((rows, cols))),
    }
    if init not in fills:
        raise ValueError(f"init must be constant, zeros or xavier, not {init!r}")
    return fills[init]().requires_grad_()


def train_hidden_units(x, y, hidden, init, steps, lr):
    x, y = x.detach(), y.detach()
    w1 = _start(init, hidden, x.shape[1], x)
    w2 = _start(init, 1, hidden, x)
    for _ in range(steps):
        prediction = torch.tanh(x @ w1.mT) @ w2.mT
        loss = (prediction[:, 0] - y).square().mean()
        loss.backward()
        with torch.no_grad():
            for w in (w1, w2):
                w.sub_(lr * w.grad)
                w.grad = None
    return w1.detach()
