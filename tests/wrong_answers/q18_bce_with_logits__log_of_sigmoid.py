"""Wrong: applies sigmoid, then takes logs of p and 1 - p: log(0) = -inf at logits of ±100."""

import torch


def bce_with_logits(logits, target, *, pos_weight=None, reduction="mean"):
    if target.shape != logits.shape or reduction not in ("mean", "sum", "none"):
        raise ValueError("target must have logits' shape; reduction mean, sum or none")
    p = torch.sigmoid(logits)
    weight = 1 if pos_weight is None else pos_weight
    loss = -(weight * target * torch.log(p) + (1 - target) * torch.log(1 - p))
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
