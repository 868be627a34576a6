"""Correct: log p_t from F.cross_entropy(reduction="none"); Huber saving the clamped slope."""

import torch
import torch.nn.functional as F
from torch import nn


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in {"mean", "sum", "none"} or gamma < 0:
            raise ValueError("gamma must be >= 0 and reduction one of mean, sum, none")
        self.gamma, self.reduction = gamma, reduction

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        ce = F.cross_entropy(logits, target, reduction="none")  # -log p_t, stable
        one_minus = -torch.expm1(-ce)
        safe = torch.where(one_minus > 0, one_minus, torch.ones_like(one_minus))
        at_zero = one_minus.pow(self.gamma).detach()  # 0 ** gamma, with no gradient
        weight = torch.where(one_minus > 0, safe.pow(self.gamma), at_zero)
        loss = weight * ce
        return {"mean": loss.mean, "sum": loss.sum, "none": lambda: loss}[self.reduction]()


class HuberFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, target, delta):  # type: ignore[override]
        if tuple(input.shape) != tuple(target.shape) or not delta > 0:
            raise ValueError("input and target must have one shape, and delta > 0")
        d = input - target
        inside = d.abs() <= delta
        slope = d.clamp(-delta, delta)
        ctx.save_for_backward(slope)
        return torch.where(inside, 0.5 * d * d, delta * (d.abs() - 0.5 * delta))

    @staticmethod
    def backward(ctx, grad_output):  # type: ignore[override]
        (slope,) = ctx.saved_tensors
        grad = slope * grad_output
        return grad, -grad, None
