"""Correct: per-layer norms as the norm of a stack of norms in a dict comprehension, clipping
with clamp(max=1) of the coefficient."""

from collections.abc import Iterable

import torch
from torch import nn


def _norm_of_norms(grads: list[torch.Tensor], norm_type: float = 2.0) -> torch.Tensor:
    device = grads[0].device
    norms = [torch.linalg.vector_norm(g, norm_type).to(device) for g in grads]
    return torch.linalg.vector_norm(torch.stack(norms), norm_type)


def layer_grad_norms(model: nn.Module) -> dict[str, torch.Tensor]:
    with torch.no_grad():
        own = {
            name: [p.grad for p in module.parameters(recurse=False) if p.grad is not None]
            for name, module in model.named_modules()
        }
        return {name: _norm_of_norms(grads) for name, grads in own.items() if grads}


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
    with torch.no_grad():
        total = _norm_of_norms(grads, float(norm_type))
        if error_if_nonfinite and not bool(torch.isfinite(total)):
            raise RuntimeError(f"the total norm of order {norm_type} is non-finite: {total}")
        factor = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(factor.to(g.device))
    return total
