"""Wrong: multiplies the whole element-wise loss by pos_weight, negatives included,
instead of the positive term only."""

from solutions.q18_bce_with_logits import bce_with_logits as reference


def bce_with_logits(logits, target, *, pos_weight=None, reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    loss = reference(logits, target, reduction="none")
    if pos_weight is not None:
        loss = pos_weight * loss
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
