"""gamma in a non-persistent buffer, a double-where safe power, backward from a saved clamp."""

import torch
from torch import nn
from torch.nn import functional as F

_REDUCE = {
    "none": lambda losses: losses,
    "sum": torch.sum,
    "mean": torch.mean,
}


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__()
        if gamma < 0:
            raise ValueError(f"gamma must be >= 0, got {gamma}")
        if reduction not in _REDUCE:
            raise ValueError(f"unknown reduction {reduction!r}")
        self.reduction = reduction
        self.register_buffer(
            "gamma", torch.tensor(float(gamma), dtype=torch.float64), persistent=False
        )

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        log_pt = F.log_softmax(logits, dim=-1).take_along_dim(target.unsqueeze(-1), dim=-1)
        log_pt = log_pt.squeeze(-1)
        miss = -torch.expm1(log_pt)  # 1 - p_t without cancellation
        positive = miss > 0
        safe = torch.where(positive, miss, torch.ones_like(miss))
        gamma = self.gamma.to(logits.dtype)
        weight = torch.where(positive, safe.pow(gamma), torch.zeros_like(miss).pow(gamma))
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
            raise ValueError(f"shapes differ: {tuple(input.shape)} vs {tuple(target.shape)}")
        if delta <= 0:
            raise ValueError(f"delta must be > 0, got {delta}")
        diff = input - target
        size = diff.abs()
        inner = size.clamp(max=delta)  # |d| inside the band, delta outside it
        slope = diff.clamp(-delta, delta)
        ctx.save_for_backward(slope)
        return inner * (size - 0.5 * inner)

    @staticmethod
    def backward(
        ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor
    ) -> tuple[torch.Tensor | None, torch.Tensor | None, None]:
        (slope,) = ctx.saved_tensors
        grad = slope * grad_output
        needs_input, needs_target, _ = ctx.needs_input_grad
        return (grad if needs_input else None, -grad if needs_target else None, None)
