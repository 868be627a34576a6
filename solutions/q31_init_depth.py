"""Kata 31: why initialisation matters in deep networks (reference answer)."""

import math

import torch
from torch import nn

_ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}


def deep_stack(
    depth: int,
    width: int,
    activation: str,
    init: str,
    *,
    device: torch.device | str | None = None,
) -> nn.Sequential:
    if activation not in _ACTIVATIONS:
        raise ValueError(f"activation must be one of {sorted(_ACTIVATIONS)}, got {activation!r}")
    if init not in ("normal", "xavier", "kaiming"):
        raise ValueError(f"init must be 'normal', 'xavier' or 'kaiming', got {init!r}")
    if depth < 1 or width < 1:
        raise ValueError(f"depth and width must be at least 1, got {depth} and {width}")
    layers: list[nn.Module] = []
    for _ in range(depth):
        linear = nn.Linear(width, width, bias=False, device=device)
        if init == "normal":
            nn.init.normal_(linear.weight, mean=0.0, std=1.0)
        elif init == "xavier":
            nn.init.xavier_normal_(linear.weight)
        else:
            nn.init.kaiming_normal_(linear.weight, nonlinearity="relu")
        layers += [linear, _ACTIVATIONS[activation]()]
    return nn.Sequential(*layers)


def activation_stds(stack: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    stds = []
    with torch.no_grad():  # a measurement: nothing here needs gradients
        for layer in stack:
            x = layer(x)
            if not isinstance(layer, nn.Linear):
                stds.append(x.std())
    # No activation module, no std: an empty 1-D tensor (torch.stack refuses an empty list).
    return torch.stack(stds) if stds else x.new_empty(0)


def relu_std_ratio(width: int, weight_std: float) -> float:
    # Var(pre-activation) = width · weight_std² · E[h²], and ReLU keeps half of it.
    # weight_std outside the root: its square would underflow or overflow for extreme stds.
    return weight_std * math.sqrt(width / 2)


_FILL = {"constant": 0.5, "zeros": 0.0}


def train_hidden_units(
    x: torch.Tensor, y: torch.Tensor, hidden: int, init: str, steps: int, lr: float
) -> torch.Tensor:
    if init not in ("constant", "zeros", "xavier"):
        raise ValueError(f"init must be 'constant', 'zeros' or 'xavier', got {init!r}")
    net = nn.Sequential(
        nn.Linear(x.shape[1], hidden, bias=False),
        nn.Tanh(),
        nn.Linear(hidden, 1, bias=False),
    ).to(x.device, x.dtype)
    weights = [net[0].weight, net[2].weight]
    for weight in weights:
        if init == "xavier":
            nn.init.xavier_normal_(weight)  # random draws: this is what breaks the symmetry
        else:
            nn.init.constant_(weight, _FILL[init])
    x, y = x.detach(), y.detach()  # data, not parameters
    for _ in range(steps):
        loss = (net(x).squeeze(-1) - y).pow(2).mean()
        grads = torch.autograd.grad(loss, weights)
        with torch.no_grad():
            for weight, grad in zip(weights, grads, strict=True):
                weight -= lr * grad
    return net[0].weight.detach()
