"""Wrong: takes softplus from F.log_softmax of the logits paired with 0 (softplus(x) is
-log_softmax([0, x])[0]), a softplus under another name."""

import torch
import torch.nn.functional as F


def _softplus(z):
    return -F.log_softmax(torch.stack([torch.zeros_like(z), z]), dim=0)[0]


def bce_with_logits(logits, target, *, pos_weight=None, reduction="mean"):
    if target.shape != logits.shape:
        raise ValueError("target must have logits' shape")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"bad reduction {reduction!r}")
    positive = target * _softplus(-logits)
    if pos_weight is not None:
        positive = pos_weight * positive
    loss = positive + (1 - target) * _softplus(logits)
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
