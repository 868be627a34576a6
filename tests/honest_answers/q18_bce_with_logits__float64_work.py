"""Works in float64 whatever the input dtype and rounds the loss once back to the logits'
dtype; the negative-side softplus is written from the positive one (softplus(-x) =
softplus(x) - x is avoided: it cancels), pos_weight defaulting to a Python 1."""

import torch

_REDUCTIONS = ("mean", "sum", "none")


def _sp(z: torch.Tensor) -> torch.Tensor:
    return torch.log1p(torch.exp(-z.abs())) + torch.maximum(z, torch.zeros_like(z))


def bce_with_logits(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    pos_weight: torch.Tensor | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction)
    if tuple(target.shape) != tuple(logits.shape):
        raise ValueError("shape mismatch between logits and target")
    weight: torch.Tensor | float = 1.0
    if pos_weight is not None:
        if torch.broadcast_shapes(pos_weight.shape, logits.shape) != logits.shape:
            raise ValueError("pos_weight broadcasts beyond logits")
        weight = pos_weight.to(torch.float64)
    x = logits.to(torch.float64)
    y = target.to(torch.float64)
    loss = weight * y * _sp(-x) + (1.0 - y) * _sp(x)
    if reduction == "sum":
        loss = loss.sum()
    elif reduction == "mean":
        loss = loss.mean()
    return loss.to(logits.dtype)
