"""Correct: max(z, 0) by torch.where with softplus' slope 1/2 at the tie (z == 0), pos_weight
checked against logits' shape by hand, the mean as sum / numel."""

import torch


def _softplus(z):
    zero = torch.zeros_like(z)
    # z for z > 0, 0 below; at z == 0 the value 0 with softplus' slope 1/2.
    positive_part = torch.where(z > 0, z, torch.where(z == 0, 0.5 * z, zero))
    return positive_part + torch.log1p(torch.exp(-z.abs()))


def bce_with_logits(logits, target, *, pos_weight=None, reduction="mean"):
    if logits.shape != target.shape:
        raise ValueError("target's shape must be logits'")
    if pos_weight is not None:
        pw, lg = tuple(pos_weight.shape), tuple(logits.shape)
        if len(pw) > len(lg) or any(a not in (1, b) for a, b in zip(reversed(pw), reversed(lg))):
            raise ValueError("pos_weight must broadcast to logits' shape")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError("bad reduction")
    pos = target * _softplus(-logits)
    if pos_weight is not None:
        pos = pos * pos_weight
    loss = pos + (1 - target) * _softplus(logits)
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / loss.numel()
    return loss
