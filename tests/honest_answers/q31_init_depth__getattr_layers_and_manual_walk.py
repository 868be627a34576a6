"""Activation classes looked up by name with getattr, stds from a dict of formulas filled by
nn.init.normal_, and the stack walked layer by layer by hand (no hooks to remove)."""

import math
from collections.abc import Callable

import torch
from torch import nn

_ACTIVATIONS = {"relu": "ReLU", "tanh": "Tanh"}
_STDS: dict[str, Callable[[int, int], float]] = {
    "normal": lambda fan_in, fan_out: 1.0,
    "xavier": lambda fan_in, fan_out: math.sqrt(2.0 / (fan_in + fan_out)),
    "kaiming": lambda fan_in, fan_out: math.sqrt(2.0 / fan_in),
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
        raise ValueError(f"unknown activation {activation!r}")
    if init not in _STDS:
        raise ValueError(f"unknown init {init!r}")
    if depth < 1 or width < 1:
        raise ValueError(f"depth and width must be >= 1, got {depth} and {width}")
    act_class = getattr(nn, _ACTIVATIONS[activation])
    std = _STDS[init](width, width)
    layers: list[nn.Module] = []
    for _ in range(depth):
        linear = nn.Linear(width, width, bias=False, device=device)
        nn.init.normal_(linear.weight, mean=0.0, std=std)
        layers += [linear, act_class()]
    return nn.Sequential(*layers)


def activation_stds(stack: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    stds = []
    with torch.no_grad():
        h = x
        for layer in stack:
            h = layer(h)
            if not isinstance(layer, nn.Linear):
                stds.append(torch.std(h))
    if not stds:
        return x.new_empty(0).detach()
    return torch.stack(stds)


def relu_std_ratio(width: int, weight_std: float) -> float:
    # var grows by width * std**2, ReLU halves the mean square: std ratio std * sqrt(width / 2)
    return weight_std * math.sqrt(width / 2)


def train_hidden_units(
    x: torch.Tensor, y: torch.Tensor, hidden: int, init: str, steps: int, lr: float
) -> torch.Tensor:
    initialisers: dict[str, Callable[[torch.Tensor], object]] = {
        "constant": lambda weight: nn.init.constant_(weight, 0.5),
        "zeros": nn.init.zeros_,
        "xavier": nn.init.xavier_normal_,
    }
    if init not in initialisers:
        raise ValueError(f"init must be one of {sorted(initialisers)}, got {init!r}")
    hidden_layer = nn.Linear(x.shape[1], hidden, bias=False, device=x.device, dtype=x.dtype)
    output_layer = nn.Linear(hidden, 1, bias=False, device=x.device, dtype=x.dtype)
    for layer in (hidden_layer, output_layer):
        initialisers[init](layer.weight)
    optimizer = torch.optim.SGD([hidden_layer.weight, output_layer.weight], lr=lr)
    inputs, targets = x.detach(), y.detach()
    for _ in range(steps):
        optimizer.zero_grad()
        out = output_layer(torch.tanh(hidden_layer(inputs))).squeeze(-1)
        ((out - targets) ** 2).mean().backward()
        optimizer.step()
    return hidden_layer.weight.detach().clone()
