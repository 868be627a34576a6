"""Wrong: clamps sigmoid(x) into [1e-7, 1 - 1e-7] before the logs: finite, but the loss
saturates near 16 and the gradient vanishes for confidently wrong logits."""

import torch


def bce_with_logits(logits, target, *, pos_weight=None, reduction="mean"):
    if target.shape != logits.shape or reduction not in ("mean", "sum", "none"):
        raise ValueError("target must have logits' shape; reduction mean, sum or none")
    p = torch.sigmoid(logits).clamp(1e-7, 1 - 1e-7)
    weight = 1 if pos_weight is None else pos_weight
    loss = -(weight * target * torch.log(p) + (1 - target) * torch.log(1 - p))
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
