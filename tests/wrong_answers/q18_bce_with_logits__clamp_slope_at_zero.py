"""Wrong: writes max(z, 0) as clamp(min=0), whose autograd slope at z = 0 is 1 instead of
softplus' 1/2, so the gradient at a logit of exactly 0 is wrong (1 - 2y instead of 1/2 - y)."""

import torch

from solutions.q18_bce_with_logits import _REDUCTIONS


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
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")

    # softplus(z) = max(z, 0) + log1p(exp(-|z|)): exp only ever sees -|z| <= 0, so nothing
    # overflows, and log1p keeps the precision of the tiny exp(-|z|) for large |z|.
    # Both softplus(x) and softplus(-x) share the log1p term.
    tail = torch.log1p(torch.exp(-logits.abs()))
    minus_log_p = (-logits).clamp(min=0) + tail  # -log sigmoid(x) = softplus(-x)
    minus_log_not_p = logits.clamp(min=0) + tail  # -log(1 - sigmoid(x)) = softplus(x)

    positive = target * minus_log_p
    if pos_weight is not None:
        positive = pos_weight * positive  # weights the positive term only
    loss = positive + (1 - target) * minus_log_not_p

    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
