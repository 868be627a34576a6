"""Correct: the slopes as a vector-Jacobian product with a vector of ones (grad_outputs, no
sum), grad mode switched with set_grad_enabled, the units counted with count_nonzero and
divided in Python, and nn.Identity() for "no activation" (the docstring allows it as well as
None)."""

import math
from collections.abc import Callable, Mapping

import torch
from torch import nn

from solutions.q21_dead_relus import dead_relu_fraction  # the rest as in the reference


def dead_and_saturated(
    pre: torch.Tensor,
    activations: Mapping[str, Callable[[torch.Tensor], torch.Tensor]],
    threshold: float = 1e-3,
) -> dict[str, tuple[float, float]]:
    if math.isnan(threshold) or threshold <= 0:
        raise ValueError("threshold")
    if pre.ndim == 0 or 0 in pre.shape:
        raise ValueError("pre")
    x = pre.detach()
    units = x[0].numel()
    result = {}
    for name, f in activations.items():
        leaf = x.clone().requires_grad_(True)
        with torch.set_grad_enabled(True):
            out = f(leaf)
            (slope,) = torch.autograd.grad(out, leaf, grad_outputs=torch.ones_like(out))
        y, slope = out.detach().reshape(len(x), units), slope.reshape(len(x), units)
        dead = int(torch.count_nonzero(torch.logical_and(y == 0, slope == 0).all(0)))
        # Compared in float64: the threshold as given, not rounded to pre's dtype.
        saturated = int(torch.count_nonzero((slope.abs().double() < threshold).all(0)))
        result[name] = (dead / units, saturated / units)
    return result


def output_activation(task: str) -> nn.Module | None:
    match task:
        case "regression" | "binary" | "multilabel" | "multiclass":
            return nn.Identity()
        case "positive":
            return nn.Softplus(beta=1.0)
        case "bounded":
            return nn.Tanh()
        case "multiclass_nll":
            return nn.LogSoftmax(dim=1)
        case _:
            raise ValueError(f"no output activation for task {task!r}")
