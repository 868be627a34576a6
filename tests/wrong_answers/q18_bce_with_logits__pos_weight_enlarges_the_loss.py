"""Wrong: lets a pos_weight broadcast logits to a larger shape, returning a loss of that shape
where torch refuses it."""

import torch

from solutions.q18_bce_with_logits import _REDUCTIONS


def bce_with_logits(logits, target, *, pos_weight=None, reduction="mean"):
    if target.shape != logits.shape:
        raise ValueError(f"target must have logits' shape {tuple(logits.shape)}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")
    tail = torch.log1p(torch.exp(-logits.abs()))
    zero = torch.zeros_like(logits)
    minus_log_p = torch.maximum(-logits, zero) + tail
    minus_log_not_p = torch.maximum(logits, zero) + tail
    positive = target * minus_log_p
    if pos_weight is not None:
        positive = pos_weight * positive
    loss = positive + (1 - target) * minus_log_not_p
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
