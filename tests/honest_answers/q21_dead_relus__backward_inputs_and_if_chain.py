"""Slopes by backward(inputs=[x]) on a leaf copy, compared in float64; an if-chain of fresh
modules; hooks in a try/finally list, buffers snapshot and copied back in place."""

from collections.abc import Callable, Mapping

import torch
from torch import nn


def dead_and_saturated(
    pre: torch.Tensor,
    activations: Mapping[str, Callable[[torch.Tensor], torch.Tensor]],
    threshold: float = 1e-3,
) -> dict[str, tuple[float, float]]:
    if pre.dim() == 0 or pre.shape[0] == 0 or pre[0].numel() == 0:
        raise ValueError(f"pre needs at least one example and one unit, got {tuple(pre.shape)}")
    if not threshold > 0:
        raise ValueError(f"threshold must be > 0, got {threshold}")
    n, units = pre.shape[0], pre[0].numel()
    result = {}
    for name, f in activations.items():
        x = pre.detach().clone().requires_grad_(True)
        with torch.enable_grad():
            out = f(x)
            # backward into x alone: an activation's own parameters keep their .grad.
            out.sum().backward(inputs=[x])
        slope = x.grad if x.grad is not None else torch.zeros_like(x)
        out = out.detach()
        dead = ((out == 0) & (slope == 0)).reshape(n, units).all(dim=0)
        saturated = (slope.abs().double() < threshold).reshape(n, units).all(dim=0)
        result[name] = (int(dead.sum()) / units, int(saturated.sum()) / units)
    return result


def output_activation(task: str) -> nn.Module | None:
    if task in ("regression", "binary", "multilabel", "multiclass"):
        return None
    if task == "positive":
        return nn.Softplus()
    if task == "bounded":
        return nn.Tanh()
    if task == "multiclass_nll":
        return nn.LogSoftmax(dim=1)
    raise ValueError(f"unknown task {task!r}")


def dead_relu_fraction(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    if x.dim() == 0 or x.shape[0] == 0:
        raise ValueError("x needs at least one example")
    fractions: dict[str, float] = {}

    def recorder(name: str) -> Callable[..., None]:
        def hook(module: nn.Module, inputs: tuple, output: torch.Tensor) -> None:
            n = output.shape[0]
            units = output[0].numel() if n else 0
            if units == 0:
                fractions[name] = 0.0
                return
            dead = (output == 0).reshape(n, units).all(dim=0)
            fractions[name] = int(dead.sum()) / units

        return hook

    saved = [(b, b.clone()) for b in model.buffers()]
    handles = []
    try:
        for name, module in model.named_modules():
            if isinstance(module, nn.ReLU):
                handles.append(module.register_forward_hook(recorder(name)))
        with torch.no_grad():
            model(x.clone())
    finally:
        for handle in handles:
            handle.remove()
        with torch.no_grad():
            for buffer, value in saved:
                buffer.copy_(value)
    return fractions
