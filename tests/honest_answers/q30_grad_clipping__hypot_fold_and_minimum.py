"""Per-tensor norms folded pairwise with functools.reduce (torch.hypot for the 2-norm,
torch.maximum for inf); the clip factor from torch.minimum, which keeps a nan."""

import functools
import math
from collections.abc import Iterable

import torch
from torch import nn


def _fold(norms: list[torch.Tensor], p: float) -> torch.Tensor:
    if p == 2:
        # hypot(inf, nan) is inf; a sum of squares with a nan in it is nan, as torch gives.
        folded = functools.reduce(torch.hypot, norms)
        return torch.where(torch.stack(norms).isnan().any(), torch.nan, folded)
    if math.isinf(p):
        return functools.reduce(torch.maximum, norms)
    return functools.reduce(lambda a, b: torch.linalg.vector_norm(torch.stack([a, b]), p), norms)


def layer_grad_norms(model: nn.Module) -> dict[str, torch.Tensor]:
    out: dict[str, torch.Tensor] = {}
    with torch.no_grad():
        for name, module in model.named_modules():
            norms = [
                torch.linalg.vector_norm(p.grad)
                for p in module.parameters(recurse=False)
                if p.grad is not None
            ]
            if norms:
                out[name] = _fold(norms, 2.0)
    return out


def clip_grad_norm(
    parameters: torch.Tensor | Iterable[torch.Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
) -> torch.Tensor:
    if isinstance(parameters, torch.Tensor):
        parameters = (parameters,)
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    home = grads[0].device
    with torch.no_grad():
        total = _fold([torch.linalg.vector_norm(g, norm_type).to(home) for g in grads], norm_type)
        finite = bool(torch.isfinite(total))
        if error_if_nonfinite and not finite:
            raise RuntimeError(f"non-finite total norm {total.item()} of order {norm_type}")
        coef = max_norm / (total + 1e-6)
        coef = torch.minimum(coef, torch.ones_like(coef))
        for g in grads:
            g.mul_(coef.to(g.device))
    return total
