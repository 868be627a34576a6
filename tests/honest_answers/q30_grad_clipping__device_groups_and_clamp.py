"""Gradients grouped by device in a dict, norms per group stacked and combined on the first
device; the clip factor from clamp(max=1) on a tensor, applied with mul_ per gradient."""

from collections.abc import Iterable

import torch
from torch import nn


def layer_grad_norms(model: nn.Module) -> dict[str, torch.Tensor]:
    norms: dict[str, torch.Tensor] = {}
    with torch.no_grad():
        for name, module in model.named_modules():
            grads = [p.grad for p in module.parameters(recurse=False) if p.grad is not None]
            if not grads:
                continue
            per_tensor = torch.stack([torch.linalg.vector_norm(g) for g in grads])
            norms[name] = torch.linalg.vector_norm(per_tensor)
    return norms


def clip_grad_norm(
    parameters: torch.Tensor | Iterable[torch.Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
) -> torch.Tensor:
    params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    first = grads[0].device
    by_device: dict[torch.device, list[torch.Tensor]] = {}
    for g in grads:
        by_device.setdefault(g.device, []).append(g)
    with torch.no_grad():
        norms = [
            torch.linalg.vector_norm(g, norm_type).to(first)
            for group in by_device.values()
            for g in group
        ]
        total = torch.linalg.vector_norm(torch.stack(norms), norm_type)
        if error_if_nonfinite and not torch.isfinite(total).item():
            raise RuntimeError(
                f"the total norm of order {norm_type} of the gradients is not finite, "
                "so it cannot be clipped"
            )
        factor = torch.clamp(max_norm / (total + 1e-6), max=1.0)
        for group in by_device.values():
            local = factor.to(group[0].device)
            for g in group:
                g.mul_(local)
    return total
