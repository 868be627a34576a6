"""Correct: softplus for "positive" as max(x, 0) + log1p(exp(-|x|)), exact in float64 where
nn.Softplus() switches to x above 20."""

import math
from collections.abc import Callable, Mapping

import torch
from torch import nn


def dead_relu_fraction(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    if x.shape[0] == 0:
        raise ValueError("x needs at least one example to tell dead units from live ones")
    fractions: dict[str, float] = {}

    def record(name: str):
        def hook(module: nn.Module, inputs: tuple, output: torch.Tensor) -> None:
            # One row per example, one column per unit; dead = zero in every row.
            # Computed right away: a later in-place op could still change `output`.
            dead = (output.reshape(output.shape[0], -1) == 0).all(dim=0)
            # No units: no dead unit (a mean over nothing would be NaN).
            fractions[name] = dead.float().mean().item() if dead.numel() else 0.0

        return hook

    # A forward in training mode updates BatchNorm's running statistics: put them back.
    buffers = [(buffer, buffer.detach().clone()) for buffer in model.buffers()]
    handles = []
    try:
        for name, module in model.named_modules():
            if isinstance(module, nn.ReLU):
                handles.append(module.register_forward_hook(record(name)))
        with torch.no_grad():  # a measurement: no graph, no gradients
            # On a copy: a model may work in place on its input (nn.ReLU(inplace=True)
            # first), and the caller's x must stay as it was.
            model(x.clone())
    finally:
        # Removing through the handles takes off our hooks only, whatever happened above.
        for handle in handles:
            handle.remove()
        with torch.no_grad():
            for buffer, saved in buffers:
                buffer.copy_(saved)
    return fractions


def dead_and_saturated(
    pre: torch.Tensor,
    activations: Mapping[str, Callable[[torch.Tensor], torch.Tensor]],
    threshold: float = 1e-3,
) -> dict[str, tuple[float, float]]:
    if not threshold > 0:  # written so that NaN fails it too
        raise ValueError(f"threshold must be > 0, got {threshold}")
    if pre.dim() == 0 or pre.numel() == 0:
        raise ValueError(f"pre needs at least one example and one unit, got shape {pre.shape}")
    n = pre.shape[0]
    measured = {}
    for name, activation in activations.items():
        # A leaf of our own: the caller's tensor, its .grad and its graph stay untouched.
        x = pre.detach().clone().requires_grad_()
        with torch.enable_grad():
            y = activation(x)
            # Elementwise: d sum(f(x)) / dx_i = f'(x_i), every slope in one backward pass.
            (slope,) = torch.autograd.grad(y.sum(), x)
        output, slope = y.detach().reshape(n, -1), slope.reshape(n, -1)
        # A unit is a column; dead or saturated means so in every row (every example).
        dead = ((output == 0) & (slope == 0)).all(dim=0)
        saturated = (slope.abs() < _at_or_above(threshold, slope.dtype)).all(dim=0)
        measured[name] = (dead.float().mean().item(), saturated.float().mean().item())
    return measured


def _at_or_above(threshold: float, dtype: torch.dtype) -> float:
    """The smallest value of `dtype` not below `threshold`: a value of that dtype is below
    it exactly when it is below the threshold, which a comparison in the dtype would round
    first (float16 rounds 1e-8 to 0)."""
    exact = torch.tensor(threshold, dtype=torch.float64)
    rounded = exact.to(dtype)
    if rounded.double() < exact:
        rounded = torch.nextafter(rounded, torch.tensor(math.inf, dtype=dtype))
    return rounded.item()


class _ExactSoftplus(nn.Module):
    """softplus(x) = log(1 + exp(x)) to the dtype's rounding everywhere: never overflows."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(x, min=0) + torch.log1p(torch.exp(-x.abs()))


def output_activation(task: str) -> nn.Module | None:
    # The logit losses (BCEWithLogitsLoss, CrossEntropyLoss) squash inside, stably: the model
    # ends linear. Only a target with a range of its own, or a loss that takes
    # log-probabilities, needs a final activation.
    choices: dict[str, Callable[[], nn.Module | None]] = {
        "regression": lambda: None,
        "binary": lambda: None,
        "multilabel": lambda: None,
        "multiclass": lambda: None,
        "positive": _ExactSoftplus,  # > 0, and linear for large x where exp overflows
        "bounded": nn.Tanh,
        "multiclass_nll": lambda: nn.LogSoftmax(dim=1),  # dim 1: the class dim
    }
    if task not in choices:
        raise ValueError(f"unknown task {task!r}; known: {', '.join(choices)}")
    return choices[task]()
