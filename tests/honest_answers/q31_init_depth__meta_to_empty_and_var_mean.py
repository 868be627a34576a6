"""Layers made on the meta device and materialised with to_empty, so nothing is drawn before
the chosen init (nn.init.normal_ at the scheme's std); biased stds from torch.var_mean with
correction=0; the small network trained with torch.optim.SGD and loss.backward()."""

import math
from collections.abc import Callable

import torch
from torch import nn


def deep_stack(
    depth: int,
    width: int,
    activation: str,
    init: str,
    *,
    device: torch.device | str | None = None,
) -> nn.Sequential:
    if min(depth, width) < 1:
        raise ValueError("depth and width must be positive")
    try:
        act = {"relu": nn.ReLU, "tanh": nn.Tanh}[activation]
        std = {
            "normal": 1.0,
            "xavier": math.sqrt(2 / (width + width)),
            "kaiming": math.sqrt(2 / width),
        }[init]
    except KeyError as missing:
        raise ValueError(f"unknown activation or init: {missing}") from None
    layers: list[nn.Module] = []
    for _ in range(depth):
        layers += [nn.Linear(width, width, bias=False, device="meta"), act()]
    stack = nn.Sequential(*layers).to_empty(
        device=torch.get_default_device() if device is None else device
    )
    for layer in stack:
        if isinstance(layer, nn.Linear):
            nn.init.normal_(layer.weight, mean=0.0, std=std)
    return stack


def activation_stds(stack: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    out = torch.empty(0, dtype=x.dtype, device=x.device)
    with torch.no_grad():
        h = x
        for module in stack:  # every position, a module used twice included
            h = module(h)
            if isinstance(module, nn.Linear):
                continue
            var, _ = torch.var_mean(h, correction=0)
            out = torch.cat([out, var.sqrt().reshape(1)])
    return out


def relu_std_ratio(width: int, weight_std: float) -> float:
    return weight_std * math.sqrt(width) * math.sqrt(0.5)


_INITS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "constant": lambda w: nn.init.constant_(w, 0.5),
    "zeros": nn.init.zeros_,
    "xavier": nn.init.xavier_normal_,
}


def train_hidden_units(
    x: torch.Tensor, y: torch.Tensor, hidden: int, init: str, steps: int, lr: float
) -> torch.Tensor:
    if init not in _INITS:
        raise ValueError(f"init must be one of {sorted(_INITS)}, got {init!r}")
    kw = {"dtype": x.dtype, "device": x.device}
    net = nn.Sequential(
        nn.Linear(x.shape[-1], hidden, bias=False, **kw),
        nn.Tanh(),
        nn.Linear(hidden, 1, bias=False, **kw),
    )
    for layer in (net[0], net[2]):
        _INITS[init](layer.weight)
    x, y = x.detach(), y.detach()  # the network's weights are all that is differentiated
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    with torch.enable_grad():
        for _ in range(steps):
            optimizer.zero_grad()
            ((net(x).squeeze(-1) - y) ** 2).mean().backward()
            optimizer.step()
    return net[0].weight.detach().clone()
