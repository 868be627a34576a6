"""Norms of concatenated gradients in a walrus dict comprehension; the clip by torch.minimum."""

from collections.abc import Iterable

import torch
from torch import nn


def _own_grads(module: nn.Module) -> list[torch.Tensor]:
    return [p.grad.reshape(-1) for p in module.parameters(recurse=False) if p.grad is not None]


@torch.no_grad()
def layer_grad_norms(model: nn.Module) -> dict[str, torch.Tensor]:
    return {
        name: torch.linalg.vector_norm(torch.cat(grads))
        for name, module in model.named_modules()
        if (grads := _own_grads(module))
    }


@torch.no_grad()
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
    home = grads[0].device
    per_tensor = torch.stack([torch.linalg.vector_norm(g, norm_type).to(home) for g in grads])
    total = torch.linalg.vector_norm(per_tensor, norm_type)
    if error_if_nonfinite and not bool(torch.isfinite(total)):
        raise RuntimeError(f"the total {norm_type}-norm of the gradients is {total.item()}")
    coefficient = max_norm / (total + 1e-6)
    # minimum, unlike a comparison in torch.where, keeps a NaN factor NaN as torch does.
    factor = torch.minimum(coefficient, torch.ones_like(coefficient))
    for g in grads:
        g.mul_(factor.to(g.device))
    return total
