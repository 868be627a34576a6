"""Wrong: checks only that target has as many elements as logits and reshapes it, so a
target of another layout is accepted."""

import torch


def bce_with_logits(logits, target, *, pos_weight=None, reduction="mean"):
    if target.numel() != logits.numel():
        raise ValueError(f"target must have {logits.numel()} elements, got {target.numel()}")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    target = target.reshape(logits.shape)
    tail = torch.log1p(torch.exp(-logits.abs()))
    zero = torch.zeros_like(logits)
    positive = target * (torch.maximum(-logits, zero) + tail)
    if pos_weight is not None:
        positive = pos_weight * positive
    loss = positive + (1 - target) * (torch.maximum(logits, zero) + tail)
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
