"""All of a stack's weights drawn in one uniform batch at the scheme's bound (sqrt(3) std)
and copied into the layers; stds from a generator of activation outputs, biased, in float64
under a torch.no_grad() decorator; the small network as two raw weight tensors run with
F.linear, trained with backward() on detached inputs and in-place updates."""

import math
from collections.abc import Iterator

import torch
import torch.nn.functional as F
from torch import nn


def _std(init: str, width: int) -> float:
    if init == "normal":
        return 1.0
    if init == "xavier":
        return math.sqrt(2.0 / (width + width))
    if init == "kaiming":
        return math.sqrt(2.0 / width)
    raise ValueError(f"unknown init {init!r}")


def deep_stack(
    depth: int,
    width: int,
    activation: str,
    init: str,
    *,
    device: torch.device | str | None = None,
) -> nn.Sequential:
    if activation == "relu":
        make_activation: type[nn.Module] = nn.ReLU
    elif activation == "tanh":
        make_activation = nn.Tanh
    else:
        raise ValueError(f"unknown activation {activation!r}")
    std = _std(init, width) if width >= 1 else 0.0
    if depth < 1 or width < 1:
        raise ValueError(f"depth and width must be positive, got {depth} and {width}")
    linears = [nn.Linear(width, width, bias=False, device=device) for _ in range(depth)]
    bound = math.sqrt(3.0) * std
    weights = torch.empty(depth, width, width, device=linears[0].weight.device)
    weights.uniform_(-bound, bound)
    with torch.no_grad():
        for linear, weight in zip(linears, weights, strict=True):
            linear.weight.copy_(weight)
    return nn.Sequential(*[m for linear in linears for m in (linear, make_activation())])


def _activation_outputs(stack: nn.Sequential, x: torch.Tensor) -> Iterator[torch.Tensor]:
    h = x
    for layer in stack:
        h = layer(h)
        if not isinstance(layer, nn.Linear):
            yield h


@torch.no_grad()
def activation_stds(stack: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    stds = [output.double().var(correction=0).sqrt() for output in _activation_outputs(stack, x)]
    if not stds:
        return x.new_empty(0)
    return torch.stack(stds).to(x.dtype)


def relu_std_ratio(width: int, weight_std: float) -> float:
    return weight_std / math.sqrt(2.0 / width)


def train_hidden_units(
    x: torch.Tensor, y: torch.Tensor, hidden: int, init: str, steps: int, lr: float
) -> torch.Tensor:
    fill = {"constant": 0.5, "zeros": 0.0, "xavier": None}
    if init not in fill:
        raise ValueError(f"unknown init {init!r}")
    shapes = [(hidden, x.shape[1]), (1, hidden)]
    weights = [torch.empty(shape, dtype=x.dtype, device=x.device) for shape in shapes]
    for w in weights:
        value = fill[init]
        if value is None:
            nn.init.xavier_normal_(w)
        else:
            w.fill_(value)
        w.requires_grad_(True)
    first, second = weights
    # backward() fills the .grad of every leaf it reaches: cut x and y off so only the two
    # weights are reached, never a caller's tensor that requires grad.
    x, y = x.detach(), y.detach()
    for _ in range(steps):
        prediction = F.linear(torch.tanh(F.linear(x, first)), second)
        loss = ((prediction.squeeze(-1) - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for w in weights:
                assert w.grad is not None
                w -= lr * w.grad
                w.grad = None
    return first.detach()
