"""Norms accumulated explicitly in float32 (float64 kept), cast back to the gradients' dtype."""

from collections.abc import Iterable

import torch
from torch import nn


def _acc_dtype(dtype: torch.dtype) -> torch.dtype:
    # half-precision squares overflow: accumulate in float32, never lose float64
    return torch.float64 if dtype == torch.float64 else torch.float32


def _norm_of(grad: torch.Tensor, norm_type: float) -> torch.Tensor:
    return torch.linalg.vector_norm(grad, norm_type, dtype=_acc_dtype(grad.dtype))


@torch.no_grad()
def layer_grad_norms(model: nn.Module) -> dict[str, torch.Tensor]:
    norms: dict[str, torch.Tensor] = {}
    for name, module in model.named_modules():
        grads = [p.grad for p in module.parameters(recurse=False) if p.grad is not None]
        if not grads:
            continue
        per_param = torch.stack([_norm_of(g, 2.0) for g in grads])
        norms[name] = torch.linalg.vector_norm(per_param).to(grads[0].dtype)
    return norms


@torch.no_grad()
def clip_grad_norm(
    parameters: torch.Tensor | Iterable[torch.Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
) -> torch.Tensor:
    tensors = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
    grads = [t.grad for t in tensors if t.grad is not None]
    if not grads:
        return torch.tensor(0.0)

    home = grads[0].device
    per_tensor = torch.stack([_norm_of(g, norm_type).to(home) for g in grads])
    total_acc = torch.linalg.vector_norm(per_tensor, norm_type)
    total = total_acc.to(grads[0].dtype)
    if error_if_nonfinite and not bool(torch.isfinite(total)):
        raise RuntimeError(f"the total norm of order {norm_type} is non-finite: {total.item()}")

    factor = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(factor.to(g.device))
    return total
