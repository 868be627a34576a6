"""Float64 internals: the focal loss on a float64 copy of the logits (log p_t picked by advanced
indexing, the power taken only where 1 - p_t > 0), cast back at the end; Huber as
q * (|d| - q / 2) with q = min(|d|, delta) in float64, its slope saved as copysign(q, d)."""

import torch
from torch import nn


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"unknown reduction {reduction!r}")
        if gamma < 0:
            raise ValueError("gamma must not be negative")
        self.gamma, self.reduction = float(gamma), reduction

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        wide = logits.to(torch.float64)
        log_probs = wide - torch.logsumexp(wide, dim=1, keepdim=True)
        log_pt = log_probs[torch.arange(wide.shape[0], device=wide.device), target]
        one_minus = -torch.expm1(log_pt)
        safe = torch.where(one_minus > 0, one_minus, torch.ones_like(one_minus))
        weight = torch.where(one_minus > 0, safe.pow(self.gamma), torch.zeros_like(safe))
        if self.gamma == 0:
            weight = torch.ones_like(one_minus)
        losses = -weight * log_pt
        if self.reduction == "sum":
            losses = losses.sum()
        elif self.reduction == "mean":
            losses = losses.mean()
        return losses.to(logits.dtype)


class HuberFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: torch.autograd.function.FunctionCtx,
        input: torch.Tensor,
        target: torch.Tensor,
        delta: float,
    ) -> torch.Tensor:
        if delta <= 0:
            raise ValueError("delta must be positive")
        if input.size() != target.size():
            raise ValueError("input and target must have the same shape")
        d = input.double() - target.double()
        q = torch.minimum(d.abs(), torch.tensor(delta, dtype=torch.float64, device=d.device))
        ctx.save_for_backward(torch.copysign(q, d))  # clamp(d, -delta, delta), in float64
        return (q * (d.abs() - 0.5 * q)).to(input.dtype)

    @staticmethod
    def backward(
        ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor
    ) -> tuple[torch.Tensor | None, torch.Tensor | None, None]:
        (slope,) = ctx.saved_tensors  # type: ignore[attr-defined]
        grad = (slope * grad_output.double()).to(grad_output.dtype)
        return grad, -grad, None
