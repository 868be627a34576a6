"""Correct: softplus by torch.where, each branch fed only values it keeps finite (the
primitives the docstring names are a hint, not a rule)."""

import torch


def _softplus(z):
    pos = z > 0
    safe_pos = torch.where(pos, z, 0.0)
    safe_neg = torch.where(pos, 0.0, z)
    return torch.where(
        pos, safe_pos + torch.log1p(torch.exp(-safe_pos)), torch.log1p(torch.exp(safe_neg))
    )


def bce_with_logits(logits, target, *, pos_weight=None, reduction="mean"):
    if target.shape != logits.shape:
        raise ValueError("shape")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError("reduction")
    if pos_weight is not None and (pos_weight * logits).shape != logits.shape:
        raise ValueError("pos_weight")
    positive = target * _softplus(-logits)
    if pos_weight is not None:
        positive = pos_weight * positive
    loss = positive + (1 - target) * _softplus(logits)
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
