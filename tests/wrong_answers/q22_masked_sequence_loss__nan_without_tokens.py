"""Wrong: divides by the number of real tokens unguarded, so a batch with none gives nan."""

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
    return (pred[mask] - target[mask]).square().mean()


def masked_cross_entropy(logits, target, mask):
    if logits.dim() != 3 or target.dtype != torch.int64 or target.shape != logits.shape[:2]:
        raise ValueError("logits must be [B, T, C] and target int64 [B, T]")
    _check_mask(mask, logits.shape[:2])
    return F.cross_entropy(logits[mask], target[mask])
