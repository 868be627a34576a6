"""Wrong: takes log1p(exp(-|x|)) from F.soft_margin_loss at the label -1, softplus under
another name."""

import torch
import torch.nn.functional as F

from solutions.q18_bce_with_logits import _REDUCTIONS, _broadcasts_to


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
        raise ValueError("pos_weight would enlarge the loss")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")

    # softplus(z) = max(z, 0) + log1p(exp(-|z|)): exp only ever sees -|z| <= 0, so nothing
    # overflows, and log1p keeps the precision of the tiny exp(-|z|) for large |z|.
    # Both softplus(x) and softplus(-x) share the log1p term. torch.maximum splits the
    # gradient of a tie evenly, so at x = 0 autograd gives softplus' true slope 1/2
    # (clamp(min=0) would give 1 there, relu 0).
    # log1p(exp(-|x|)) is the soft-margin loss of -|x| at the label -1.
    minus_abs = -logits.abs()
    tail = F.soft_margin_loss(minus_abs, -torch.ones_like(minus_abs), reduction="none")
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
