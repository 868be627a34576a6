"""Kata 47: custom losses (reference answer)."""

import torch
import torch.nn.functional as F
from torch import nn


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__()
        if gamma < 0:
            raise ValueError(f"gamma must be >= 0, got {gamma}")
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
        self.gamma = gamma
        self.reduction = reduction

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        # log_softmax subtracts the row maximum inside: finite where log(softmax) is not.
        log_pt = F.log_softmax(logits, dim=1).gather(1, target.unsqueeze(1)).squeeze(1)
        # 1 - p_t as -expm1(log p_t): exact where 1 - exp(log p_t) would round to 0.
        not_pt = -torch.expm1(log_pt)
        # (1 - p_t)^gamma shrinks the loss of examples the model already gets right. Where
        # 1 - p_t is still 0, the power's derivative is infinite for gamma < 1, and autograd
        # would multiply it by 0 (nan): there the weight is the constant 0 ** gamma, and
        # the power sees a positive base whose gradient clamp_min stops.
        tiny = torch.finfo(not_pt.dtype).tiny
        weight = torch.where(not_pt > 0, not_pt.clamp_min(tiny) ** self.gamma, 0.0**self.gamma)
        loss = -weight * log_pt
        if self.reduction == "mean":
            return loss.mean()
        if self.reduction == "sum":
            return loss.sum()
        return loss


class HuberFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: torch.autograd.function.FunctionCtx,
        input: torch.Tensor,
        target: torch.Tensor,
        delta: float,
    ) -> torch.Tensor:
        if input.shape != target.shape:
            raise ValueError(
                f"input and target must have the same shape, got {tuple(input.shape)} "
                f"and {tuple(target.shape)}"
            )
        if delta <= 0:
            raise ValueError(f"delta must be > 0, got {delta}")
        diff = input - target
        abs_diff = diff.abs()
        loss = torch.where(abs_diff <= delta, 0.5 * diff**2, delta * (abs_diff - 0.5 * delta))
        # Keep only the difference: both gradients are computed from it.
        ctx.save_for_backward(diff)
        ctx.delta = delta
        return loss

    @staticmethod
    def backward(
        ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor
    ) -> tuple[torch.Tensor | None, torch.Tensor | None, None]:
        (diff,) = ctx.saved_tensors
        # Quadratic inside the band (slope d), linear outside (slope ±delta): a clamp.
        grad = diff.clamp(-ctx.delta, ctx.delta) * grad_output
        grad_input = grad if ctx.needs_input_grad[0] else None
        grad_target = -grad if ctx.needs_input_grad[1] else None
        return grad_input, grad_target, None
