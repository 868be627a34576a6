"""Kata 18: binary cross-entropy from logits with pos_weight (reference answer)."""

import torch

_REDUCTIONS = ("mean", "sum", "none")


def _broadcasts_to(shape: torch.Size, target: torch.Size) -> bool:
    """Whether `shape` broadcasts to `target` without enlarging it."""
    try:
        return torch.broadcast_shapes(shape, target) == target
    except RuntimeError:
        return False


def bce_with_logits(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    pos_weight: torch.Tensor | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    if target.shape != logits.shape:
        raise ValueError(
            f"target must have logits' shape {tuple(logits.shape)}, got {tuple(target.shape)}"
        )
    if pos_weight is not None and not _broadcasts_to(pos_weight.shape, logits.shape):
        raise ValueError(
            f"pos_weight of shape {tuple(pos_weight.shape)} does not broadcast to logits' "
            f"shape {tuple(logits.shape)}"
        )
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")

    # softplus(z) = max(z, 0) + log1p(exp(-|z|)): exp only ever sees -|z| <= 0, so nothing
    # overflows, and log1p keeps the precision of the tiny exp(-|z|) for large |z|.
    # Both softplus(x) and softplus(-x) share the log1p term. torch.maximum splits the
    # gradient of a tie evenly, so at x = 0 autograd gives softplus' true slope 1/2
    # (clamp(min=0) would give 1 there, relu 0).
    tail = torch.log1p(torch.exp(-logits.abs()))
    zero = torch.zeros_like(logits)
    minus_log_p = torch.maximum(-logits, zero) + tail  # -log sigmoid(x) = softplus(-x)
    minus_log_not_p = torch.maximum(logits, zero) + tail  # -log(1 - sigmoid(x)) = softplus(x)

    positive = target * minus_log_p
    if pos_weight is not None:
        positive = pos_weight * positive  # weights the positive term only
    loss = positive + (1 - target) * minus_log_not_p

    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
