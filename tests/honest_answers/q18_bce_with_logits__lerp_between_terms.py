"""The loss as torch.lerp from the negative term to the (pos-weighted) positive
term with the target as the weight; softplus from torch.maximum and log1p(exp(-|z|))."""

import torch


def _softplus(z: torch.Tensor) -> torch.Tensor:
    return torch.maximum(z, torch.zeros_like(z)) + torch.log1p(torch.exp(-z.abs()))


def bce_with_logits(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    pos_weight: torch.Tensor | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if tuple(target.shape) != tuple(logits.shape):
        raise ValueError("target and logits differ in shape")
    positive = _softplus(-logits)
    if pos_weight is not None:
        if torch.broadcast_shapes(logits.shape, pos_weight.shape) != logits.shape:
            raise ValueError("pos_weight would broadcast logits to a larger shape")
        positive = positive * pos_weight
    # (1 - y) * softplus(x) + y * pos_weight * softplus(-x); lerp is exact at y = 0 and y = 1.
    loss = torch.lerp(_softplus(logits), positive, target)
    match reduction:
        case "none":
            return loss
        case "sum":
            return loss.sum()
        case _:
            return loss.mean()
