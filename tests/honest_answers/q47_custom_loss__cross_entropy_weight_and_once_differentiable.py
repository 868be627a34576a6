"""FocalLoss from F.cross_entropy(reduction="none") as -log p_t, the weight -expm1(-ce) raised
with a masked pow; HuberFunction with once_differentiable and set_materialize_grads(False)."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd.function import once_differentiable


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__()
        if gamma < 0:
            raise ValueError("gamma must be >= 0")
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"reduction must be one of mean, sum, none: {reduction!r}")
        self.gamma, self.reduction = gamma, reduction

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        ce = F.cross_entropy(logits, target, reduction="none")  # -log p_t, stable
        one_minus = -torch.expm1(-ce)
        zero = one_minus == 0
        weight = one_minus.masked_fill(zero, 1.0).pow(self.gamma).masked_fill(zero, 0.0)
        if self.gamma == 0:
            weight = torch.ones_like(ce)
        per_sample = weight * ce
        if self.reduction == "mean":
            return per_sample.mean()
        if self.reduction == "sum":
            return per_sample.sum()
        return per_sample


class HuberFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: torch.autograd.function.FunctionCtx,
        input: torch.Tensor,
        target: torch.Tensor,
        delta: float,
    ) -> torch.Tensor:
        if delta <= 0:
            raise ValueError(f"delta must be positive, got {delta}")
        if tuple(input.shape) != tuple(target.shape):
            raise ValueError("input and target shapes differ")
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(input, target)
        ctx.delta = delta
        diff = input - target
        size = diff.abs()
        out = torch.empty_like(diff)
        inside = size <= delta
        out[inside] = 0.5 * diff[inside].square()
        out[~inside] = delta * (size[~inside] - 0.5 * delta)
        return out

    @staticmethod
    @once_differentiable
    def backward(
        ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor | None
    ) -> tuple[torch.Tensor | None, torch.Tensor | None, None]:
        if grad_output is None:
            return None, None, None
        input, target = ctx.saved_tensors
        grad = torch.clamp(input - target, min=-ctx.delta, max=ctx.delta).mul_(grad_output)
        return grad, grad.neg(), None
