"""FocalLoss from gather of log_softmax, 1 - p_t as -expm1(log p_t) behind a double torch.where,
reductions from a dict of callables; HuberFunction saves input and target and recomputes d."""

from collections.abc import Callable

import torch
from torch import nn

_REDUCE: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "none": lambda losses: losses,
    "mean": torch.mean,
    "sum": torch.sum,
}


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__()
        if gamma < 0:
            raise ValueError(f"gamma must be >= 0, got {gamma}")
        if reduction not in _REDUCE:
            raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
        self.gamma = float(gamma)
        self.reduction = reduction

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        log_pt = torch.log_softmax(logits, dim=-1).gather(-1, target.unsqueeze(-1)).squeeze(-1)
        miss = -torch.expm1(log_pt)  # 1 - p_t without cancellation
        positive = miss > 0
        # Keep pow's input away from 0 where its derivative would be infinite (gamma < 1).
        weight = torch.where(positive, torch.where(positive, miss, 1.0).pow(self.gamma), 0.0)
        if self.gamma == 0:
            weight = torch.ones_like(miss)
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
        ctx.save_for_backward(input, target)
        ctx.delta = delta
        d = input - target
        size = d.abs()
        return torch.where(size <= delta, 0.5 * d * d, delta * (size - 0.5 * delta))

    @staticmethod
    def backward(
        ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor
    ) -> tuple[torch.Tensor | None, torch.Tensor | None, None]:
        input, target = ctx.saved_tensors
        slope = (input - target).clamp(-ctx.delta, ctx.delta) * grad_output
        need_input, need_target, _ = ctx.needs_input_grad
        return (slope if need_input else None, -slope if need_target else None, None)
