"""Correct: weights drawn uniform in [-std * sqrt(3), std * sqrt(3)] from a table of std
formulas, layers built by a generator, activations walked child by child with biased stds."""

import math

import torch
from torch import nn

_ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}
_STD = {
    "normal": lambda width: 1.0,
    "xavier": lambda width: math.sqrt(2.0 / (width + width)),
    "kaiming": lambda width: math.sqrt(2.0 / width),
}


def _layers(depth, width, make_activation, std, device):
    bound = std * math.sqrt(3.0)  # a uniform on [-a, a] has std a / sqrt(3)
    for _ in range(depth):
        linear = nn.Linear(width, width, bias=False, device=device)
        nn.init.uniform_(linear.weight, -bound, bound)
        yield linear
        yield make_activation()


def deep_stack(depth, width, activation, init, *, device=None):
    if activation not in _ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}")
    if init not in _STD:
        raise ValueError(f"unknown init {init!r}")
    if depth < 1 or width < 1:
        raise ValueError(f"depth and width must be at least 1, got {depth} and {width}")
    return nn.Sequential(
        *_layers(depth, width, _ACTIVATIONS[activation], _STD[init](width), device)
    )


def activation_stds(stack, x):
    stds = []
    with torch.no_grad():
        out = x
        for layer in stack.children():
            out = layer(out)
            if not isinstance(layer, nn.Linear):
                stds.append(torch.std(out, correction=0))
    if not stds:
        return torch.empty(0, dtype=x.dtype, device=x.device)
    return torch.stack(stds)


def relu_std_ratio(width, weight_std):
    return weight_std * math.sqrt(width / 2)


def train_hidden_units(x, y, hidden, init, steps, lr):
    starts = {
        "constant": lambda w: nn.init.constant_(w, 0.5),
        "zeros": nn.init.zeros_,
        "xavier": nn.init.xavier_normal_,
    }
    if init not in starts:
        raise ValueError(init)
    first = nn.Linear(x.size(-1), hidden, bias=False).to(x)
    last = nn.Linear(hidden, 1, bias=False).to(x)
    for layer in (first, last):
        starts[init](layer.weight)
    params = [first.weight, last.weight]
    for _ in range(steps):
        out = last(torch.tanh(first(x.detach()))).flatten()
        grads = torch.autograd.grad(((out - y.detach()) ** 2).mean(), params)
        with torch.no_grad():
            for param, grad in zip(params, grads):
                param.add_(grad, alpha=-lr)
    return first.weight.detach()
