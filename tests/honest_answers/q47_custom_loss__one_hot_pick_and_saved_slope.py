"""Focal loss picking log p_t with a one-hot product and reducing through a table of functions,
1 - p_t from expm1 with a guarded power; the Huber Function saves the clamped slope itself."""

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn


def _unreduced(losses: torch.Tensor) -> torch.Tensor:
    return losses


_REDUCE: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "mean": torch.mean,
    "sum": torch.sum,
    "none": _unreduced,
}


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__()
        if gamma < 0:
            raise ValueError(f"gamma must be >= 0, got {gamma}")
        if reduction not in _REDUCE:
            raise ValueError(f"reduction must be one of {sorted(_REDUCE)}, got {reduction!r}")
        self.gamma = float(gamma)
        self.reduction = reduction

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        log_probs = F.log_softmax(logits, dim=1)
        picked = F.one_hot(target, num_classes=logits.shape[1]).to(log_probs.dtype)
        log_pt = (picked * log_probs).sum(dim=1)
        miss = -torch.expm1(log_pt)  # 1 - p_t, exact also where p_t is close to 1
        # At miss == 0 the power's derivative is infinite for gamma < 1: give it a base of 1
        # there and the constant 0 ** gamma as its value, so no gradient flows through it.
        hit = miss > 0
        safe = torch.where(hit, miss, torch.ones_like(miss))
        weight = torch.where(hit, safe.pow(self.gamma), miss.detach().pow(self.gamma))
        return _REDUCE[self.reduction](-weight * log_pt)


class HuberFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: torch.autograd.function.FunctionCtx,
        input: torch.Tensor,
        target: torch.Tensor,
        delta: float,
    ) -> torch.Tensor:
        if input.shape != target.shape:
            raise ValueError(f"shapes differ: {tuple(input.shape)} and {tuple(target.shape)}")
        if not delta > 0:
            raise ValueError(f"delta must be > 0, got {delta}")
        d = input - target
        size = d.abs()
        loss = torch.where(size <= delta, 0.5 * d * d, delta * (size - 0.5 * delta))
        ctx.save_for_backward(d.clamp(-delta, delta))
        return loss

    @staticmethod
    def backward(
        ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor
    ) -> tuple[torch.Tensor | None, torch.Tensor | None, None]:
        (slope,) = ctx.saved_tensors  # type: ignore[attr-defined]
        grad = slope * grad_output
        wants_input, wants_target, _ = ctx.needs_input_grad  # type: ignore[attr-defined]
        return (grad if wants_input else None, -grad if wants_target else None, None)
