"""Slopes with torch.func.grad; one global forward hook that looks modules up by identity."""

from collections.abc import Callable, Mapping

import torch
from torch import nn


def _fraction_all(mask: torch.Tensor) -> float:
    """The share of units (columns) where the mask holds for every example (row)."""
    per_unit = mask.all(dim=0)
    return float(per_unit.double().mean().item()) if per_unit.numel() else 0.0


def dead_and_saturated(
    pre: torch.Tensor,
    activations: Mapping[str, Callable[[torch.Tensor], torch.Tensor]],
    threshold: float = 1e-3,
) -> dict[str, tuple[float, float]]:
    if pre.ndim == 0 or pre.shape[0] == 0 or pre[0].numel() == 0:
        raise ValueError(f"pre needs at least one example and one unit, got {tuple(pre.shape)}")
    if not threshold > 0:
        raise ValueError(f"threshold must be positive, got {threshold}")

    x = pre.detach().clone()
    rows = x.shape[0]
    limit = torch.tensor(threshold, dtype=torch.float64, device=x.device)
    out: dict[str, tuple[float, float]] = {}
    for name, f in activations.items():

        def total(inp: torch.Tensor, f: Callable[[torch.Tensor], torch.Tensor] = f) -> torch.Tensor:
            return f(inp).sum()

        # torch.func.grad differentiates whatever the caller's grad mode; enable_grad for the rest
        with torch.enable_grad():
            slope = torch.func.grad(total)(x)
        with torch.no_grad():
            y = f(x)
        y, slope = y.reshape(rows, -1), slope.reshape(rows, -1)
        dead = (y == 0) & (slope == 0)
        saturated = slope.abs().double() < limit
        out[name] = (_fraction_all(dead), _fraction_all(saturated))
    return out


def output_activation(task: str) -> nn.Module | None:
    if task in ("regression", "binary", "multilabel", "multiclass"):
        return nn.Identity()
    if task == "positive":
        return nn.Softplus(beta=1.0)
    if task == "bounded":
        return nn.Tanh()
    if task == "multiclass_nll":
        return nn.LogSoftmax(dim=1)
    raise ValueError(f"no output activation for task {task!r}")


def dead_relu_fraction(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    if x.ndim == 0 or x.shape[0] == 0:
        raise ValueError("x has no examples")
    names = {id(m): name for name, m in model.named_modules() if isinstance(m, nn.ReLU)}
    result: dict[str, float] = {}

    def on_forward(module: nn.Module, inputs: object, output: torch.Tensor) -> None:
        name = names.get(id(module))
        if name is not None:
            flat = output.reshape(output.shape[0], -1) if output.numel() else output[:, None]
            result[name] = _fraction_all(flat == 0)

    saved = [(b, b.clone()) for b in model.buffers()]
    handle = torch.nn.modules.module.register_module_forward_hook(on_forward)
    try:
        with torch.no_grad():
            model(x.clone())
    finally:
        handle.remove()
        with torch.no_grad():
            for buffer, values in saved:
                buffer.copy_(values)
    return result
