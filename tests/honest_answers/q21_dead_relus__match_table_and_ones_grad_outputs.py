"""A match-statement table; autograd.grad with ones as grad_outputs, counted in float64;
the buffers of each module snapshot and put back in a finally block."""

from collections.abc import Callable, Mapping

import torch
from torch import nn


def dead_and_saturated(
    pre: torch.Tensor,
    activations: Mapping[str, Callable[[torch.Tensor], torch.Tensor]],
    threshold: float = 1e-3,
) -> dict[str, tuple[float, float]]:
    if pre.dim() == 0:
        raise ValueError("pre must have a batch dimension")
    n = pre.size(0)
    units = pre[0].numel() if n else 0
    if n == 0 or units == 0:
        raise ValueError(
            f"pre needs at least one example and one unit, got shape {tuple(pre.shape)}"
        )
    if not threshold > 0:
        raise ValueError(f"threshold must be > 0, got {threshold}")
    result: dict[str, tuple[float, float]] = {}
    for name, f in activations.items():
        with torch.enable_grad():
            x = pre.detach().clone().requires_grad_(True)
            y = f(x)
            (slope,) = torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y))
        out = y.detach().reshape(n, units)
        slope = slope.reshape(n, units)
        dead = ((out == 0) & (slope == 0)).all(dim=0)
        saturated = (slope.abs().to(torch.float64) < threshold).all(dim=0)
        result[name] = (
            dead.to(torch.float64).mean().item(),
            saturated.to(torch.float64).mean().item(),
        )
    return result


def output_activation(task: str) -> nn.Module | None:
    match task:
        case "regression" | "binary" | "multilabel" | "multiclass":
            return nn.Identity()
        case "positive":
            return nn.Softplus()
        case "bounded":
            return nn.Tanh()
        case "multiclass_nll":
            return nn.LogSoftmax(dim=1)
        case _:
            raise ValueError(f"unknown task {task!r}")


def dead_relu_fraction(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    if x.dim() == 0 or x.size(0) == 0:
        raise ValueError("x must hold at least one example")
    saved = []
    for module in model.modules():
        persistent = set(module.state_dict(keep_vars=True))
        for name, buf in module.named_buffers(recurse=False):
            saved.append((module, name, buf, buf.clone(), name in persistent))
    found: dict[str, float] = {}

    def make_hook(name: str) -> Callable[[nn.Module, tuple, torch.Tensor], None]:
        def hook(module: nn.Module, inputs: tuple, output: torch.Tensor) -> None:
            n = output.size(0)
            units = output[0].numel() if n else 0
            if units == 0:
                found[name] = 0.0
                return
            dead = (output.reshape(n, units) == 0).all(dim=0)
            found[name] = float(dead.to(torch.float64).sum().item()) / units

        return hook

    handles = []
    try:
        for name, module in model.named_modules():
            if isinstance(module, nn.ReLU):
                handles.append(module.register_forward_hook(make_hook(name)))
        with torch.no_grad():
            model(x.clone())
    finally:
        for handle in handles:
            handle.remove()
        with torch.no_grad():
            for module, name, buf, value, persistent in saved:
                if module.get_buffer(name) is not buf:
                    module.register_buffer(name, buf, persistent=persistent)
                buf.copy_(value)
    order = [name for name, m in model.named_modules() if isinstance(m, nn.ReLU)]
    return {name: found[name] for name in order if name in found}
