"""torch.nn.init's own schemes (kaiming_normal_ with nonlinearity="relu", xavier_normal_,
normal_) applied through Sequential.apply; stds measured under torch.inference_mode into a
preallocated tensor, cloned outside it; the small network trained with torch.autograd.grad
and in-place sub_."""

import math

import torch
from torch import nn

_ACTIVATIONS: dict[str, type[nn.Module]] = {"relu": nn.ReLU, "tanh": nn.Tanh}


def _init_normal(module: nn.Module) -> None:
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, mean=0.0, std=1.0)


def _init_xavier(module: nn.Module) -> None:
    if isinstance(module, nn.Linear):
        nn.init.xavier_normal_(module.weight)


def _init_kaiming(module: nn.Module) -> None:
    if isinstance(module, nn.Linear):
        nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")


_INITS = {"normal": _init_normal, "xavier": _init_xavier, "kaiming": _init_kaiming}


def deep_stack(
    depth: int,
    width: int,
    activation: str,
    init: str,
    *,
    device: torch.device | str | None = None,
) -> nn.Sequential:
    try:
        act_cls = _ACTIVATIONS[activation]
        init_fn = _INITS[init]
    except (KeyError, TypeError):
        raise ValueError(f"unknown activation {activation!r} or init {init!r}") from None
    if depth < 1 or width < 1:
        raise ValueError(f"depth and width must be >= 1, got {depth}, {width}")
    stack = nn.Sequential()
    for _ in range(depth):
        stack.append(nn.Linear(width, width, bias=False, device=device))
        stack.append(act_cls())
    # apply visits the modules in order, so the draws go layer by layer.
    with torch.no_grad():
        stack.apply(init_fn)
    return stack


def activation_stds(stack: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    with torch.inference_mode():
        stds = x.new_empty(sum(not isinstance(layer, nn.Linear) for layer in stack))
        h = x
        k = 0
        for layer in stack:
            h = layer(h)
            if not isinstance(layer, nn.Linear):
                stds[k] = torch.std(h)
                k += 1
    # An inference tensor cannot be written in place outside inference_mode: hand back a
    # normal copy.
    return stds.clone()


def relu_std_ratio(width: int, weight_std: float) -> float:
    return weight_std * math.sqrt(width / 2)


def train_hidden_units(
    x: torch.Tensor, y: torch.Tensor, hidden: int, init: str, steps: int, lr: float
) -> torch.Tensor:
    if init not in ("constant", "zeros", "xavier"):
        raise ValueError(f"unknown init {init!r}")
    first = nn.Linear(x.shape[1], hidden, bias=False, dtype=x.dtype, device=x.device)
    second = nn.Linear(hidden, 1, bias=False, dtype=x.dtype, device=x.device)
    net = nn.Sequential(first, nn.Tanh(), second)
    weights = [first.weight, second.weight]
    with torch.no_grad():
        for w in weights:
            if init == "constant":
                w.fill_(0.5)
            elif init == "zeros":
                w.zero_()
            else:
                nn.init.xavier_normal_(w)
    for _ in range(steps):
        loss = ((net(x).squeeze(-1) - y) ** 2).mean()
        grads = torch.autograd.grad(loss, weights)
        with torch.no_grad():
            for w, g in zip(weights, grads, strict=True):
                w.sub_(g, alpha=lr)
    return first.weight.detach().clone()
