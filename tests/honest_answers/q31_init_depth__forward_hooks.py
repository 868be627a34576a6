"""Layers chained by itertools, a table of std lambdas, activation stds taken by forward hooks."""

import itertools
import math

import torch
from torch import nn

_ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}
_STD = {
    "normal": lambda fan: 1.0,
    "xavier": lambda fan: math.sqrt(2.0 / (fan + fan)),
    "kaiming": lambda fan: math.sqrt(2.0 / fan),
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
    if init not in _STD:
        raise ValueError(f"unknown init {init!r}")
    if depth < 1 or width < 1:
        raise ValueError("depth and width must be at least 1")
    std = _STD[init](width)
    linears = [nn.Linear(width, width, bias=False, device=device) for _ in range(depth)]
    for linear in linears:
        nn.init.normal_(linear.weight, mean=0.0, std=std)
    acts = (_ACTIVATIONS[activation]() for _ in range(depth))
    return nn.Sequential(*itertools.chain.from_iterable(zip(linears, acts)))


def activation_stds(stack: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    stds: list[torch.Tensor] = []
    # One hook per module object: a module used twice fires its hook twice by itself.
    handles = [
        module.register_forward_hook(lambda _m, _i, out: stds.append(out.std()))
        for module in dict.fromkeys(stack)
        if not isinstance(module, nn.Linear)
    ]
    try:
        with torch.no_grad():
            stack(x)
    finally:
        for handle in handles:
            handle.remove()
    return torch.stack(stds) if stds else x.new_empty(0)


def relu_std_ratio(width: int, weight_std: float) -> float:
    return float(weight_std * math.sqrt(width / 2))


def train_hidden_units(
    x: torch.Tensor, y: torch.Tensor, hidden: int, init: str, steps: int, lr: float
) -> torch.Tensor:
    # The two weight matrices as plain leaf tensors: the network written out by hand.
    fills = {"constant": 0.5, "zeros": 0.0}
    if init != "xavier" and init not in fills:
        raise ValueError(f"unknown init {init!r}")
    w1 = torch.empty(hidden, x.shape[1], dtype=x.dtype, device=x.device)
    w2 = torch.empty(1, hidden, dtype=x.dtype, device=x.device)
    for weight in (w1, w2):
        if init == "xavier":
            nn.init.xavier_normal_(weight)
        else:
            weight.fill_(fills[init])
        weight.requires_grad_()
    inputs, targets = x.detach(), y.detach()
    for _ in itertools.repeat(None, steps):
        prediction = torch.tanh(inputs @ w1.T) @ w2.T
        loss = (prediction.squeeze(-1) - targets).square().mean()
        g1, g2 = torch.autograd.grad(loss, (w1, w2))
        with torch.no_grad():
            w1.sub_(lr * g1)
            w2.sub_(lr * g2)
    return w1.detach()
