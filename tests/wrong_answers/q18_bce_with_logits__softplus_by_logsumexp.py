"""Wrong: takes softplus(x) from logsumexp over (0, x), a builtin that does the stable part."""

import torch


def bce_with_logits(logits, target, *, pos_weight=None, reduction="mean"):
    if target.shape != logits.shape:
        raise ValueError(f"target must have logits' shape {tuple(logits.shape)}")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    zero = torch.zeros_like(logits)
    minus_log_p = torch.stack([zero, -logits]).logsumexp(0)  # softplus(-x)
    minus_log_not_p = torch.stack([zero, logits]).logsumexp(0)  # softplus(x)
    positive = target * minus_log_p
    if pos_weight is not None:
        positive = pos_weight * positive
    loss = positive + (1 - target) * minus_log_not_p
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
