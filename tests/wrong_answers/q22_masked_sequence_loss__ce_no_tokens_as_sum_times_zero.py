"""Wrong: returns logits.sum() * 0 with no real token: nan when the padded logits sum to inf."""

import torch
import torch.nn.functional as F

from solutions.q22_masked_sequence_loss import (  # the rest as in the reference
    _accumulation_dtype,
    _check_mask,
    length_mask,
    masked_mse,
)


def masked_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    if logits.dim() != 3:
        raise ValueError(f"logits must be [B, T, C], got shape {tuple(logits.shape)}")
    if target.dtype != torch.int64 or target.shape != logits.shape[:2]:
        raise ValueError(
            f"target must be int64 of shape {tuple(logits.shape[:2])}, "
            f"got {target.dtype} {tuple(target.shape)}"
        )
    _check_mask(mask, logits.shape[:2])
    if not mask.any():  # no real token: a zero that still has a graph to logits
        return logits.sum() * 0
    acc = _accumulation_dtype(logits.dtype)
    total = F.cross_entropy(logits[mask].to(acc), target[mask], reduction="sum")
    return (total / mask.sum().clamp(min=1)).to(logits.dtype)
