"""The per-sample focal loss written for one sample and vectorised with torch.vmap, the
power guarded by clamp_min(tiny) (whose gradient is 0 where it clamps); Huber computed in
float64 and rounded once, with set_materialize_grads(False) and needs_input_grad."""

import torch
from torch import nn


def _sample_loss(row: torch.Tensor, t: torch.Tensor, gamma: float) -> torch.Tensor:
    log_pt = row[t] - torch.logsumexp(row, dim=0)
    one_minus = -torch.expm1(log_pt)  # 1 - p_t without cancellation
    weight = one_minus.clamp_min(torch.finfo(row.dtype).tiny).pow(gamma)
    return -weight * log_pt


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in ["mean", "sum", "none"] or type(reduction) is not str:
            raise ValueError(f"unknown reduction {reduction!r}")
        if gamma < 0:
            raise ValueError("gamma cannot be negative")
        self.gamma, self.reduction = gamma, reduction

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        gamma = self.gamma
        per_sample = torch.vmap(lambda row, t: _sample_loss(row, t, gamma))(logits, target)
        match self.reduction:
            case "sum":
                return per_sample.sum()
            case "mean":
                return per_sample.mean()
            case _:
                return per_sample


class HuberFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: torch.autograd.function.FunctionCtx,
        input: torch.Tensor,
        target: torch.Tensor,
        delta: float,
    ) -> torch.Tensor:
        if tuple(input.shape) != tuple(target.shape):
            raise ValueError("input and target must have the same shape")
        if delta <= 0:
            raise ValueError("delta must be positive")
        ctx.set_materialize_grads(False)
        diff = input.double() - target.double()
        big = diff.abs() > delta
        loss = torch.where(big, delta * (diff.abs() - delta / 2), diff.square() / 2)
        ctx.save_for_backward(diff.clamp(-delta, delta).to(input.dtype))
        return loss.to(input.dtype)

    @staticmethod
    def backward(
        ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor | None
    ) -> tuple[torch.Tensor | None, torch.Tensor | None, None]:
        if grad_output is None:
            return None, None, None
        (clamped,) = ctx.saved_tensors  # type: ignore[attr-defined]
        grad = clamped * grad_output
        need_input, need_target, _ = ctx.needs_input_grad  # type: ignore[attr-defined]
        return (grad if need_input else None), (-grad if need_target else None), None
