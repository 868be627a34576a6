"""FocalLoss weights the whole log-softmax matrix by (1 - p)^gamma and hands it to F.nll_loss
for the pick (reduction="none"); HuberFunction in the setup_context style (forward without ctx),
keeping the clamped difference, a fresh tensor, as its saved state."""

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in {"mean", "sum", "none"}:
            raise ValueError(f"unknown reduction {reduction!r}")
        if gamma < 0:
            raise ValueError("gamma must not be negative")
        self.gamma = gamma
        self.reduction = reduction

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        log_p = F.log_softmax(logits, dim=1)
        if self.gamma == 0:
            weighted = log_p
        else:
            one_minus_p = -log_p.expm1()
            safe = one_minus_p.clamp_min(torch.finfo(log_p.dtype).tiny)
            # Where 1 - p is 0 the weight is 0, and the gradient through `safe` is cut there.
            weight = torch.where(one_minus_p > 0, safe.pow(self.gamma), 0.0)
            weighted = weight * log_p
        # nll_loss picks each sample's entry; the mean and the sum are torch's reductions,
        # which accumulate float16 in float32 (nll_loss's own "mean" overflows past 65504).
        losses = F.nll_loss(weighted, target, reduction="none")
        if self.reduction == "none":
            return losses
        return losses.mean() if self.reduction == "mean" else losses.sum()


class HuberFunction(torch.autograd.Function):
    @staticmethod
    def forward(input: torch.Tensor, target: torch.Tensor, delta: float) -> torch.Tensor:  # type: ignore[override]
        if delta <= 0:
            raise ValueError("delta must be positive")
        if input.size() != target.size():
            raise ValueError("input and target must have the same shape")
        d = input - target
        inside = d.abs() <= delta
        quadratic = d.square().mul(0.5)
        linear = d.abs().sub(0.5 * delta).mul(delta)
        return quadratic.where(inside, linear)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: torch.Tensor) -> None:
        input, target, delta = inputs
        ctx.clamped = (input - target).detach().clamp(-delta, delta)

    @staticmethod
    def backward(  # type: ignore[override]
        ctx: Any, grad_output: torch.Tensor
    ) -> tuple[torch.Tensor | None, torch.Tensor | None, None]:
        grad = ctx.clamped * grad_output
        return grad, -grad, None
