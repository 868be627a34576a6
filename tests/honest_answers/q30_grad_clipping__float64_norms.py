"""Per-tensor norms taken in float64 (vector_norm's dtype argument), combined with a second
vector_norm, and rounded once to the gradients' dtype; the clip factor is clamp_max'd and
applied with mul_."""

import math
from collections.abc import Iterable

import torch
from torch import nn


def _wide(dtype: torch.dtype) -> torch.dtype:
    # Half-precision squares overflow; anything at most float64 wide fits float64.
    return torch.float64 if dtype.is_floating_point else dtype


def layer_grad_norms(model: nn.Module) -> dict[str, torch.Tensor]:
    out: dict[str, torch.Tensor] = {}
    with torch.no_grad():
        for name, module in model.named_modules():
            grads = [p.grad for p in module.parameters(recurse=False) if p.grad is not None]
            if not grads:
                continue
            dtype = grads[0].dtype
            sq = sum(torch.linalg.vector_norm(g, 2, dtype=_wide(dtype)).square() for g in grads)
            out[name] = torch.as_tensor(sq).sqrt().to(dtype)
    return out


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
    first = grads[0]
    norm_type = float(norm_type)
    with torch.no_grad():
        per_tensor = [
            torch.linalg.vector_norm(g, norm_type, dtype=_wide(g.dtype)).to(first.device)
            for g in grads
        ]
        total = torch.linalg.vector_norm(torch.stack(per_tensor), norm_type).to(first.dtype)
        if error_if_nonfinite and not math.isfinite(total.item()):
            raise RuntimeError(f"the total norm of order {norm_type} is not finite")
        factor = (max_norm / (total + 1e-6)).clamp_max(1.0)
        for g in grads:
            g.mul_(factor.to(g.device))
    return total
