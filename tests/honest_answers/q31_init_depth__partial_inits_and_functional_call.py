"""Init table of functools.partial, a layer generator, torch.func.grad over functional_call."""

import functools
import math
from collections.abc import Callable, Iterator

import torch
from torch import nn
from torch.func import functional_call, grad

_ACTIVATIONS: dict[str, type[nn.Module]] = {"relu": nn.ReLU, "tanh": nn.Tanh}
_INITS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "normal": functools.partial(nn.init.normal_, mean=0.0, std=1.0),
    "xavier": nn.init.xavier_normal_,
    "kaiming": functools.partial(nn.init.kaiming_normal_, nonlinearity="relu"),
}


def deep_stack(
    depth: int,
    width: int,
    activation: str,
    init: str,
    *,
    device: torch.device | str | None = None,
) -> nn.Sequential:
    if activation not in _ACTIVATIONS or init not in _INITS:
        raise ValueError(f"unknown activation {activation!r} or init {init!r}")
    if depth < 1 or width < 1:
        raise ValueError(f"depth and width must be >= 1, got {depth}, {width}")

    def layers() -> Iterator[nn.Module]:
        for _ in range(depth):
            linear = nn.Linear(width, width, bias=False, device=device)
            with torch.no_grad():
                _INITS[init](linear.weight)
            yield linear
            yield _ACTIVATIONS[activation]()

    return nn.Sequential(*layers())


def activation_stds(stack: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    stds = []
    h = x
    with torch.no_grad():
        for module in stack:
            h = module(h)
            if not isinstance(module, nn.Linear):
                stds.append(h.std())
    if not stds:
        return x.new_empty(0)
    return torch.stack(stds)


def relu_std_ratio(width: int, weight_std: float) -> float:
    return math.sqrt(width / 2) * weight_std


def train_hidden_units(
    x: torch.Tensor, y: torch.Tensor, hidden: int, init: str, steps: int, lr: float
) -> torch.Tensor:
    fills: dict[str, Callable[[torch.Tensor], object]] = {
        "constant": functools.partial(nn.init.constant_, val=0.5),
        "zeros": nn.init.zeros_,
        "xavier": nn.init.xavier_normal_,
    }
    if init not in fills:
        raise ValueError(f"unknown init {init!r}")
    net = nn.Sequential(
        nn.Linear(x.shape[1], hidden, bias=False),
        nn.Tanh(),
        nn.Linear(hidden, 1, bias=False),
    ).to(device=x.device, dtype=x.dtype)
    for layer in (net[0], net[2]):
        with torch.no_grad():
            fills[init](layer.weight)
    params = {name: p.detach() for name, p in net.named_parameters()}

    def loss(p: dict[str, torch.Tensor]) -> torch.Tensor:
        return ((functional_call(net, p, (x,)).squeeze(-1) - y) ** 2).mean()

    for _ in range(steps):
        grads = grad(loss)(params)
        params = {name: value - lr * grads[name] for name, value in params.items()}
    return params["0.weight"].detach()
