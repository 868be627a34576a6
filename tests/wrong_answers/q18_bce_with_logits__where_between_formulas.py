"""Wrong: picks between two formulas with torch.where, each of which overflows on the other
side; the loss is right but the unused branch's inf turns the gradient into nan."""

import torch


def bce_with_logits(logits, target, *, pos_weight=None, reduction="mean"):
    if target.shape != logits.shape or reduction not in ("mean", "sum", "none"):
        raise ValueError("target must have logits' shape; reduction mean, sum or none")
    # softplus(-x): for x >= 0 use log1p(exp(-x)); for x < 0 use -x + log1p(exp(x)).
    minus_log_p = torch.where(
        logits >= 0, torch.log1p(torch.exp(-logits)), -logits + torch.log1p(torch.exp(logits))
    )
    minus_log_not_p = logits + minus_log_p  # softplus(x) = x + softplus(-x)
    weight = 1 if pos_weight is None else pos_weight
    loss = weight * target * minus_log_p + (1 - target) * minus_log_not_p
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
