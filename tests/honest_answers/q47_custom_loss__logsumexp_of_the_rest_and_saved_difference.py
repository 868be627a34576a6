"""log(1 - p_t) as a log-sum-exp over the other classes (target masked to -inf), the focal
weight as exp(gamma * log(1 - p_t)) so no power is differentiated at 0; Huber saving the
difference and rebuilding the clamp in backward from |d| <= delta and sign(d)."""

import torch
from torch import nn

_REDUCTIONS = frozenset({"mean", "sum", "none"})


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__()
        if not isinstance(reduction, str) or reduction not in _REDUCTIONS:
            raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
        if gamma < 0:
            raise ValueError(f"gamma must be >= 0, got {gamma}")
        self.gamma = gamma
        self.reduction = reduction

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        classes = logits.shape[1]
        log_norm = torch.logsumexp(logits, dim=1)
        log_pt = logits.gather(1, target.unsqueeze(1)).squeeze(1) - log_norm
        if classes == 1:  # p_t is exactly 1: no other class, no loss
            losses = log_pt * 0
        else:
            is_target = torch.arange(classes, device=logits.device) == target.unsqueeze(1)
            others = logits.masked_fill(is_target, float("-inf"))
            log_rest = torch.logsumexp(others, dim=1) - log_norm  # log(1 - p_t), finite
            losses = -torch.exp(self.gamma * log_rest) * log_pt
        if self.reduction == "none":
            return losses
        return losses.sum() if self.reduction == "sum" else losses.mean()


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
        quadratic = 0.5 * d * d
        linear = delta * (size - 0.5 * delta)
        ctx.save_for_backward(d)  # a tensor of forward's own: the caller cannot change it
        ctx.delta = delta  # type: ignore[attr-defined]
        return torch.where(size <= delta, quadratic, linear)

    @staticmethod
    def backward(
        ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor
    ) -> tuple[torch.Tensor | None, torch.Tensor | None, None]:
        (d,) = ctx.saved_tensors  # type: ignore[attr-defined]
        delta: float = ctx.delta  # type: ignore[attr-defined]
        slope = torch.where(d.abs() <= delta, d, delta * torch.sign(d))
        grad = slope * grad_output
        return grad, -grad, None
