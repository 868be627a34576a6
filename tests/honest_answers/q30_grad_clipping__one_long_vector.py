"""The norm taken literally over one long vector: every gradient flattened, moved to the
first gradient's device and concatenated, then one torch.linalg.vector_norm; the clip
factor applied per gradient with torch.Tensor.mul_."""

from collections.abc import Iterable

import torch
from torch import nn


def _flat(grads: list[torch.Tensor]) -> torch.Tensor:
    home = grads[0].device
    return torch.cat([g.detach().reshape(-1).to(home) for g in grads])


def layer_grad_norms(model: nn.Module) -> dict[str, torch.Tensor]:
    norms: dict[str, torch.Tensor] = {}
    for name, module in model.named_modules():
        grads = [p.grad for p in module.parameters(recurse=False) if p.grad is not None]
        if grads:
            with torch.no_grad():
                norms[name] = torch.linalg.vector_norm(_flat(grads))
    return norms


def clip_grad_norm(
    parameters: torch.Tensor | Iterable[torch.Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
) -> torch.Tensor:
    tensors = [parameters] if torch.is_tensor(parameters) else [*parameters]
    grads = [t.grad for t in tensors if t.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    with torch.no_grad():
        total = torch.linalg.vector_norm(_flat(grads), ord=norm_type)
        if error_if_nonfinite and (total.isnan() or total.isinf()):
            raise RuntimeError("non-finite total norm")
        factor = torch.clamp(max_norm / (total + 1e-6), max=1.0)
        for g in grads:
            g.mul_(factor.to(g.device))
    return total
