"""Correct: focal loss from cross_entropy, Huber from min(|d|, delta)."""

import torch
import torch.nn.functional as F
from torch import nn


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__()
        if not gamma >= 0:
            raise ValueError("gamma must be >= 0")
        if reduction not in {"mean", "sum", "none"}:
            raise ValueError("bad reduction")
        self.gamma, self.reduction = gamma, reduction

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        ce = F.cross_entropy(logits, target, reduction="none")  # -log p_t
        rest = -torch.expm1(-ce)  # 1 - p_t
        positive = rest > 0
        safe = torch.where(positive, rest, torch.ones_like(rest))
        weight = torch.where(positive, safe**self.gamma, torch.zeros_like(rest) ** self.gamma)
        loss = weight * ce
        return {"mean": loss.mean, "sum": loss.sum, "none": lambda: loss}[self.reduction]()


class HuberFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, target, delta):
        if tuple(input.shape) != tuple(target.shape):
            raise ValueError("shapes differ")
        if not delta > 0:
            raise ValueError("delta must be positive")
        d = input - target
        inner = torch.minimum(d.abs(), torch.full_like(d, delta))
        ctx.save_for_backward(d)
        ctx.delta = delta
        return 0.5 * inner * inner + delta * (d.abs() - inner)

    @staticmethod
    def backward(ctx, grad_output):
        (d,) = ctx.saved_tensors
        grad = torch.clamp(d, min=-ctx.delta, max=ctx.delta) * grad_output
        return grad, -grad, None
