"""log p_t from torch.distributions.Categorical(logits=...).log_prob; 1 - p_t as -expm1(log p_t)
clamped to the dtype's tiny before the power; reductions from a table of callables. Huber's
backward picks d inside the band and delta * sign(d) outside from a saved mask and d."""

from collections.abc import Callable

import torch
from torch import nn
from torch.distributions import Categorical

_REDUCTIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "none": lambda losses: losses,
    "mean": torch.mean,
    "sum": torch.sum,
}


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__()
        if gamma < 0:
            raise ValueError(f"gamma must be >= 0, got {gamma}")
        if not isinstance(reduction, str) or reduction not in _REDUCTIONS:
            raise ValueError(f"reduction must be one of {sorted(_REDUCTIONS)}, got {reduction!r}")
        self.gamma = gamma
        self.reduction = reduction

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        log_pt = Categorical(logits=logits, validate_args=False).log_prob(target)
        # 1 - p_t without cancellation; clamped so the power's slope stays finite at 0
        rest = (-torch.expm1(log_pt)).clamp(min=torch.finfo(logits.dtype).tiny)
        losses = -(rest**self.gamma) * log_pt
        return _REDUCTIONS[self.reduction](losses)


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
        inside = size <= delta
        loss = torch.where(inside, 0.5 * d * d, delta * (size - 0.5 * delta))
        ctx.save_for_backward(d, inside)  # d is this call's own tensor: no later write reaches it
        ctx.delta = delta  # type: ignore[attr-defined]
        return loss

    @staticmethod
    def backward(
        ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor
    ) -> tuple[torch.Tensor | None, torch.Tensor | None, None]:
        d, inside = ctx.saved_tensors  # type: ignore[attr-defined]
        slope = torch.where(inside, d, ctx.delta * torch.sign(d))  # type: ignore[attr-defined]
        grad = slope * grad_output
        want_input, want_target, _ = ctx.needs_input_grad  # type: ignore[attr-defined]
        return (grad if want_input else None), (-grad if want_target else None), None
