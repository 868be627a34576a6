"""Wrong: averages each sequence's tokens first, then the sequences, so a short sequence's
tokens weigh more than a long one's."""

import torch
import torch.nn.functional as F

from solutions.q22_masked_sequence_loss import (  # the rest as in the reference
    _check_mask,
    length_mask,
)


def _mean_of_means(per_token, mask):
    per_sequence = torch.where(mask, per_token, 0).sum(dim=1) / mask.sum(dim=1).clamp(min=1)
    has_tokens = mask.any(dim=1)
    return per_sequence.sum() / has_tokens.sum().clamp(min=1)


def masked_mse(pred, target, mask):
    if pred.shape != target.shape or pred.dim() < 2:
        raise ValueError("pred and target must share a [B, T, ...] shape")
    _check_mask(mask, pred.shape[:2])
    diff = torch.where(mask.reshape(*mask.shape, *[1] * (pred.dim() - 2)), pred - target, 0)
    per_token = diff.square().reshape(*mask.shape, -1).mean(dim=-1)
    return _mean_of_means(per_token, mask)


def masked_cross_entropy(logits, target, mask):
    if logits.dim() != 3 or target.dtype != torch.int64 or target.shape != logits.shape[:2]:
        raise ValueError("logits must be [B, T, C] and target int64 [B, T]")
    _check_mask(mask, logits.shape[:2])
    safe_target = torch.where(mask, target, -100)
    per_token = F.cross_entropy(logits.transpose(1, 2), safe_target, reduction="none")
    return _mean_of_means(per_token, mask)
