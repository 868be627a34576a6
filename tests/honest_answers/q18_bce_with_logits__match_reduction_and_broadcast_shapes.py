"""Reduction chosen by a match statement, pos_weight checked with torch.broadcast_shapes, one
softplus helper (torch.maximum against a zero scalar plus log1p(exp(-|z|))) for both terms."""

import torch


def _softplus(z: torch.Tensor) -> torch.Tensor:
    # maximum splits the tie at z = 0 evenly, giving softplus' slope 1/2 there.
    return torch.maximum(z, z.new_zeros(())) + torch.log1p(torch.exp(-z.abs()))


def bce_with_logits(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    pos_weight: torch.Tensor | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if target.shape != logits.shape:
        raise ValueError(
            f"target shape {tuple(target.shape)} != logits shape {tuple(logits.shape)}"
        )
    if (
        pos_weight is not None
        and torch.broadcast_shapes(pos_weight.shape, logits.shape) != logits.shape
    ):
        raise ValueError(
            f"pos_weight shape {tuple(pos_weight.shape)} broadcasts past {tuple(logits.shape)}"
        )

    positive = target * _softplus(-logits)
    if pos_weight is not None:
        positive = positive * pos_weight
    loss = positive + (1 - target) * _softplus(logits)

    match reduction:
        case "none":
            return loss
        case "sum":
            return loss.sum()
        case _:
            return loss.mean()
