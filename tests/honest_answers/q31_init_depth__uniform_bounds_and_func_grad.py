"""Uniform draws with the std's bound (sqrt(3) std) from a table of stds, the stack chained
from (Linear, activation) pairs; stds measured in float64 by iterating the Sequential; the
training done with torch.func.grad over functional_call and a dict of weights."""

import itertools
import math

import torch
from torch import nn
from torch.func import functional_call, grad

_ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}
_STDS = {
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
        raise ValueError(
            f"unknown activation {activation!r}; expected one of {sorted(_ACTIVATIONS)}"
        )
    if init not in _STDS:
        raise ValueError(f"unknown init {init!r}; expected one of {sorted(_STDS)}")
    if depth < 1 or width < 1:
        raise ValueError(f"depth and width must be at least 1, got {depth} and {width}")
    bound = math.sqrt(3.0) * _STDS[init](width, width)  # U(-a, a) has std a / sqrt(3)

    def pair() -> tuple[nn.Module, nn.Module]:
        linear = nn.Linear(width, width, bias=False, device=device)
        nn.init.uniform_(linear.weight, -bound, bound)
        return linear, _ACTIVATIONS[activation]()

    return nn.Sequential(*itertools.chain.from_iterable(pair() for _ in range(depth)))


def activation_stds(stack: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    stds = []
    h = x
    with torch.no_grad():
        for module in stack:
            h = module(h)
            if not isinstance(module, nn.Linear):
                stds.append(h.to(torch.float64).std().to(x.dtype))
    if not stds:
        return torch.empty(0, dtype=x.dtype, device=x.device)
    return torch.stack(stds)


def relu_std_ratio(width: int, weight_std: float) -> float:
    # std out = std in * sqrt(width) * weight_std * sqrt(1/2): width terms, ReLU halves the
    # mean square; weight_std is never squared, so no overflow at its extremes.
    return math.sqrt(width / 2) * weight_std


def train_hidden_units(
    x: torch.Tensor, y: torch.Tensor, hidden: int, init: str, steps: int, lr: float
) -> torch.Tensor:
    fills = {"constant": 0.5, "zeros": 0.0}
    if init not in fills and init != "xavier":
        raise ValueError(f"unknown init {init!r}")
    net = nn.Sequential(
        nn.Linear(x.shape[1], hidden, bias=False, dtype=x.dtype, device=x.device),
        nn.Tanh(),
        nn.Linear(hidden, 1, bias=False, dtype=x.dtype, device=x.device),
    )
    with torch.no_grad():
        for layer in (net[0], net[2]):
            if init == "xavier":
                nn.init.xavier_normal_(layer.weight)
            else:
                layer.weight.fill_(fills[init])
    weights = {name: w.detach().clone() for name, w in net.named_parameters()}
    x_, y_ = x.detach(), y.detach()

    def loss(ws: dict[str, torch.Tensor]) -> torch.Tensor:
        return ((functional_call(net, ws, (x_,)).squeeze(-1) - y_) ** 2).mean()

    grad_of_loss = grad(loss)
    for _ in range(steps):
        grads = grad_of_loss(weights)
        weights = {name: w - lr * grads[name] for name, w in weights.items()}
    return weights["0.weight"].detach()
