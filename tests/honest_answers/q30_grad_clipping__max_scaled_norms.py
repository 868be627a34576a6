"""Norms scaled by the largest absolute entry (as BLAS nrm2 does) so no square overflows,
in the gradients' own dtype; clip_grad_norm sums |g|**p in float64 by hand for a finite
norm_type and takes amax for inf."""

import math
from collections.abc import Iterable

import torch
from torch import nn


def _scaled_norm(tensors: list[torch.Tensor]) -> torch.Tensor:
    peak = torch.stack([t.abs().amax() if t.numel() else t.new_zeros(()) for t in tensors]).amax()
    # Divide by the peak (1 where the peak is 0, to keep 0 / 0 out) before squaring.
    scale = torch.where(peak > 0, peak, torch.ones_like(peak))
    squares = sum((t / scale).square().sum() for t in tensors)
    return scale * torch.as_tensor(squares).sqrt()


def layer_grad_norms(model: nn.Module) -> dict[str, torch.Tensor]:
    result = {}
    with torch.no_grad():
        for name, module in model.named_modules():
            own = [p.grad for p in module.parameters(recurse=False) if p.grad is not None]
            if own:
                result[name] = _scaled_norm(own)
    return result


def _p_norm(g: torch.Tensor, p: float) -> torch.Tensor:
    wide = g.to(torch.float64).abs()
    if math.isinf(p):
        return wide.amax() if wide.numel() else wide.new_zeros(())
    return wide.pow(p).sum().pow(1.0 / p)


def clip_grad_norm(
    parameters: torch.Tensor | Iterable[torch.Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
) -> torch.Tensor:
    if isinstance(parameters, torch.Tensor):
        parameters = (parameters,)
    grads = [p.grad for p in parameters if p.grad is not None]
    if len(grads) == 0:
        return torch.tensor(0.0)
    home, dtype = grads[0].device, grads[0].dtype
    with torch.no_grad():
        norms = torch.stack([_p_norm(g, float(norm_type)).to(home) for g in grads])
        total = _p_norm(norms, float(norm_type)).to(dtype)
        if error_if_nonfinite and not bool(torch.isfinite(total)):
            raise RuntimeError("total norm is non-finite; gradients left as they are")
        coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
        for g in grads:
            g.mul_(coef.to(g.device))
    return total
