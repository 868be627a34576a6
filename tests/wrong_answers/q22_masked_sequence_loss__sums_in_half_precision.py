"""Wrong: sums float16 losses in float16 before dividing, so 1000 tokens that cost 100 each
overflow to inf where their mean is 100."""

import math

import torch
import torch.nn.functional as F

from solutions.q22_masked_sequence_loss import (  # the rest as in the reference
    _check_mask,
    length_mask,
)


def masked_mse(pred, target, mask):
    if pred.shape != target.shape or pred.dim() < 2:
        raise ValueError("pred and target must share a [B, T, ...] shape")
    _check_mask(mask, pred.shape[:2])
    squared_error = (pred[mask] - target[mask]).square()
    return squared_error.sum() / (mask.sum() * math.prod(pred.shape[2:])).clamp(min=1)


def masked_cross_entropy(logits, target, mask):
    if logits.dim() != 3 or target.dtype != torch.int64 or target.shape != logits.shape[:2]:
        raise ValueError("logits must be [B, T, C] and target int64 [B, T]")
    _check_mask(mask, logits.shape[:2])
    total = F.cross_entropy(logits[mask], target[mask], reduction="sum")
    return total / mask.sum().clamp(min=1)
