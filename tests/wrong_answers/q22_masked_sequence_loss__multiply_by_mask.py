"""Wrong: computes the loss at every position and multiplies by the mask; huge padded values
give inf there, and inf * 0 = nan."""

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
    per_token = (pred - target).square().reshape(*mask.shape, -1).mean(dim=-1)
    return (per_token * mask).sum() / mask.sum().clamp(min=1)


def masked_cross_entropy(logits, target, mask):
    if logits.dim() != 3 or target.dtype != torch.int64 or target.shape != logits.shape[:2]:
        raise ValueError("logits must be [B, T, C] and target int64 [B, T]")
    _check_mask(mask, logits.shape[:2])
    safe_target = torch.where(mask, target, 0)  # padded targets may be out of range
    per_token = F.cross_entropy(logits.transpose(1, 2), safe_target, reduction="none")
    return (per_token * mask).sum() / mask.sum().clamp(min=1)
