"""Correct: torch.func.vjp for the slopes, a global module hook filtered by identity, an
ExitStack for clean-up, a match statement for the output activation."""

import contextlib
import math
from collections.abc import Callable, Mapping

import torch
from torch import nn
from torch.nn.modules.module import register_module_forward_hook


def _columns(t: torch.Tensor) -> torch.Tensor:
    """(N, *units) -> (N, units)."""
    return t.reshape(len(t), math.prod(t.shape[1:]))


def dead_and_saturated(
    pre: torch.Tensor,
    activations: Mapping[str, Callable[[torch.Tensor], torch.Tensor]],
    threshold: float = 1e-3,
) -> dict[str, tuple[float, float]]:
    if math.isnan(threshold) or threshold <= 0:
        raise ValueError(f"threshold must be > 0, got {threshold}")
    if pre.ndim < 1 or 0 in pre.shape:
        raise ValueError(f"pre needs a batch dimension, an example and a unit: {tuple(pre.shape)}")
    base = pre.detach().clone()
    result = {}
    for name, f in activations.items():
        # vjp with a cotangent of ones: the slopes of an elementwise f, one pass; torch.func
        # turns autograd on for its own computation, whatever the caller's grad mode.
        out, pullback = torch.func.vjp(f, base)
        (slope,) = pullback(torch.ones_like(out))
        out, slope = _columns(out.detach()), _columns(slope.detach())
        alive = out.ne(0).any(0) | slope.ne(0).any(0)
        # In float64, where the threshold is what the caller gave (float16 rounds 1e-8 to 0).
        unsaturated = (slope.abs().double() >= threshold) | slope.isnan()
        units = out.shape[1]
        result[name] = (
            float(units - int(alive.sum())) / units,
            float(units - int(unsaturated.any(0).sum())) / units,
        )
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


def dead_relu_fraction(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    if len(x) == 0:
        raise ValueError("an empty batch has no units to call dead or alive")
    names = {}
    for name, module in model.named_modules():
        if isinstance(module, nn.ReLU):
            names[id(module)] = name
    found: dict[str, float] = {}

    def hook(module, inputs, output):
        name = names.get(id(module))
        if name is not None:  # a ReLU of this model, not any module anywhere
            alive = _columns(output).ne(0).any(0)
            found[name] = 1.0 - alive.double().mean().item() if alive.numel() else 0.0

    saved = {name: b.detach().clone() for name, b in model.named_buffers()}
    with contextlib.ExitStack() as stack:
        stack.callback(_restore, model, saved)
        stack.enter_context(register_module_forward_hook(hook))  # handle as context manager
        with torch.no_grad():
            model(x.detach().clone())
    return found


def _restore(model: nn.Module, saved: dict[str, torch.Tensor]) -> None:
    with torch.no_grad():
        for name, value in saved.items():
            model.get_buffer(name).copy_(value)
