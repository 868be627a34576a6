"""log p_t as the target's logit minus logsumexp, 1 - p_t by expm1 with its zeros set aside,
reductions from a dict, and a Function that saves its inputs (version-checked) and recomputes d."""

import enum
from collections.abc import Callable

import torch
from torch import nn


class Reduction(enum.Enum):
    MEAN = "mean"
    SUM = "sum"
    NONE = "none"


_REDUCE: dict[Reduction, Callable[[torch.Tensor], torch.Tensor]] = {
    Reduction.MEAN: torch.mean,
    Reduction.SUM: torch.sum,
    Reduction.NONE: lambda per_sample: per_sample,
}


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__()
        if gamma < 0:
            raise ValueError(f"gamma must be >= 0, got {gamma}")
        try:
            self.reduction = Reduction(reduction)
        except ValueError as error:
            message = f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}"
            raise ValueError(message) from error
        self.gamma = float(gamma)

    def extra_repr(self) -> str:
        return f"gamma={self.gamma}, reduction={self.reduction.value!r}"

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        picked = logits.gather(1, target.unsqueeze(1)).squeeze(1)
        log_pt = picked - torch.logsumexp(logits, dim=1)
        miss = -torch.expm1(log_pt)  # 1 - p_t, accurate near p_t = 1
        # At miss == 0 the power's slope is infinite: take its value there as a constant.
        hit = miss == 0
        powered = torch.where(hit, torch.ones_like(miss), miss).pow(self.gamma)
        at_zero = 0.0 if self.gamma > 0 else 1.0
        weight = torch.where(hit, torch.full_like(miss, at_zero), powered)
        per_sample = -weight * log_pt
        return _REDUCE[self.reduction](per_sample)


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
        inside = 0.5 * d * d
        outside = delta * (size - 0.5 * delta)
        ctx.save_for_backward(input, target)  # a later in-place change makes backward raise
        ctx.delta = delta
        return torch.where(size <= delta, inside, outside)

    @staticmethod
    def backward(
        ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor
    ) -> tuple[torch.Tensor | None, torch.Tensor | None, None]:
        input, target = ctx.saved_tensors
        slope = (input - target).clamp(-ctx.delta, ctx.delta) * grad_output
        wants_input, wants_target, _ = ctx.needs_input_grad
        return (slope if wants_input else None, -slope if wants_target else None, None)
