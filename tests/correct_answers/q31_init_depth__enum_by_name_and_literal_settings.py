"""Settings typed as Literal, schemes in an Enum looked up by name, weights by randn."""

import enum
import math
from typing import Literal

import torch
from torch import nn

ActivationName = Literal["relu", "tanh"]
InitName = Literal["normal", "xavier", "kaiming"]


class Init(enum.Enum):
    NORMAL = "normal"
    XAVIER = "xavier"
    KAIMING = "kaiming"

    def std(self, fan_in: int, fan_out: int) -> float:
        if self is Init.XAVIER:
            return math.sqrt(2.0 / (fan_in + fan_out))
        if self is Init.KAIMING:
            return math.sqrt(2.0 / fan_in)
        return 1.0


def _scheme(init: str) -> Init:
    if init not in {scheme.value for scheme in Init}:
        raise ValueError(f"unknown init {init!r}")
    return Init[init.upper()]


def deep_stack(
    depth: int,
    width: int,
    activation: ActivationName,
    init: InitName,
    *,
    device: torch.device | str | None = None,
) -> nn.Sequential:
    scheme = _scheme(init)
    if activation == "relu":
        make: type[nn.Module] = nn.ReLU
    elif activation == "tanh":
        make = nn.Tanh
    else:
        raise ValueError(f"unknown activation {activation!r}")
    if depth < 1 or width < 1:
        raise ValueError(f"depth and width must be >= 1, got {depth} and {width}")
    layers: list[nn.Module] = []
    for _ in range(depth):
        linear = nn.Linear(width, width, bias=False, device=device)
        with torch.no_grad():
            linear.weight.copy_(torch.randn_like(linear.weight)).mul_(scheme.std(width, width))
        layers += [linear, make()]
    return nn.Sequential(*layers)


def activation_stds(stack: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    outputs: list[torch.Tensor] = []
    handles = [
        module.register_forward_hook(lambda _m, _i, out: outputs.append(out.detach().std()))
        for module in stack
        if not isinstance(module, nn.Linear)
    ]
    try:
        with torch.no_grad():
            stack(x)
    finally:
        for handle in handles:
            handle.remove()
    return torch.stack(outputs) if outputs else x.new_empty(0)


def relu_std_ratio(width: int, weight_std: float) -> float:
    return math.sqrt(width / 2.0) * weight_std


HiddenInit = Literal["constant", "zeros", "xavier"]


def train_hidden_units(
    x: torch.Tensor, y: torch.Tensor, hidden: int, init: str, steps: int, lr: float
) -> torch.Tensor:
    if init not in ("constant", "zeros", "xavier"):
        raise ValueError(f"unknown init {init!r}")
    net = nn.Sequential(
        nn.Linear(x.shape[1], hidden, bias=False, device=x.device, dtype=x.dtype),
        nn.Tanh(),
        nn.Linear(hidden, 1, bias=False, device=x.device, dtype=x.dtype),
    )
    with torch.no_grad():
        for layer in (net[0], net[2]):
            fan_out, fan_in = layer.weight.shape
            if init == "xavier":
                std = Init.XAVIER.std(fan_in, fan_out)
                layer.weight.copy_(torch.randn_like(layer.weight) * std)
            else:
                layer.weight.fill_(0.5 if init == "constant" else 0.0)
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    for _ in range(steps):
        optimizer.zero_grad()
        nn.functional.mse_loss(net(x.detach()).squeeze(-1), y.detach()).backward()
        optimizer.step()
    return net[0].weight.detach().clone()
