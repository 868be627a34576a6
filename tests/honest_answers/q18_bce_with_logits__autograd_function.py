"""The element-wise loss as a torch.autograd.Function whose backward writes the analytic
derivatives out (sigmoid for the logits, the difference of the two softplus terms for the
target) with differentiable ops; validation first, reduction by if/elif."""

from typing import Any

import torch


def _softplus(z: torch.Tensor) -> torch.Tensor:
    zero = torch.zeros_like(z)
    return torch.maximum(z, zero) + torch.log1p(torch.exp(-torch.abs(z)))


class _ElementwiseBCE(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, y: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, y, w)
        return w * y * _softplus(-x) + (1 - y) * _softplus(x)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        x, y, w = ctx.saved_tensors
        grad_x = grad_y = None
        if ctx.needs_input_grad[0]:
            # d/dx softplus(x) = sigmoid(x); d/dx softplus(-x) = -sigmoid(-x)
            grad_x = grad * ((1 - y) * torch.sigmoid(x) - w * y * torch.sigmoid(-x))
        if ctx.needs_input_grad[1]:
            grad_y = grad * (w * _softplus(-x) - _softplus(x))
        return grad_x, grad_y, None


def bce_with_logits(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    pos_weight: torch.Tensor | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    if type(reduction) is not str or reduction not in ("mean", "sum", "none"):
        raise ValueError("reduction must be 'mean', 'sum' or 'none'")
    if logits.shape != target.shape:
        raise ValueError("target must have exactly the shape of logits")
    if pos_weight is None:
        weight = torch.ones((), dtype=logits.dtype, device=logits.device)
    else:
        weight = pos_weight.detach()  # torch gives pos_weight no gradient either
        grown = torch.broadcast_shapes(weight.shape, logits.shape)
        if len(grown) != logits.dim() or any(a != b for a, b in zip(grown, logits.shape)):
            raise ValueError("pos_weight must broadcast to the shape of logits")
    loss = _ElementwiseBCE.apply(logits, target, weight)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.mean()
