"""Grads from a generator, per-tensor norms stacked on one device, a factor capped by where."""

from collections.abc import Iterable, Iterator

import torch
from torch import nn


def _own_grads(module: nn.Module) -> Iterator[torch.Tensor]:
    for param in module.parameters(recurse=False):
        if param.grad is not None:
            yield param.grad


def _norm_of_norms(grads: list[torch.Tensor], norm_type: float) -> torch.Tensor:
    home = grads[0].device
    norms = [torch.linalg.vector_norm(g, norm_type).to(home) for g in grads]
    return torch.linalg.vector_norm(torch.stack(norms), norm_type)


@torch.no_grad()
def layer_grad_norms(model: nn.Module) -> dict[str, torch.Tensor]:
    found: dict[str, torch.Tensor] = {}
    for name, module in model.named_modules():
        grads = list(_own_grads(module))
        if grads:
            found[name] = _norm_of_norms(grads, 2.0)
    return found


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
    total = _norm_of_norms(grads, float(norm_type))
    if error_if_nonfinite and not bool(total.isfinite()):
        raise RuntimeError(
            f"the total norm of order {norm_type} of the gradients is non-finite ({total.item()})"
        )
    coefficient = max_norm / (total + 1e-6)
    factor = torch.where(coefficient > 1.0, torch.ones_like(coefficient), coefficient)  # NaN stays
    for grad in grads:
        grad.mul_(factor.to(grad.device))
    return total
