"""Wrong: checks only that target is not floating point, so uint8 (and int32) targets get in."""

import torch
import torch.nn.functional as F

from solutions.q22_masked_sequence_loss import (  # the rest as in the reference
    _check_mask,
    length_mask,
    masked_mse,
)


def masked_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    if logits.dim() != 3:
        raise ValueError(f"logits must be [B, T, C], got shape {tuple(logits.shape)}")
    if target.is_floating_point() or target.shape != logits.shape[:2]:
        raise ValueError(
            f"target must be int64 of shape {tuple(logits.shape[:2])}, "
            f"got {target.dtype} {tuple(target.shape)}"
        )
    _check_mask(mask, logits.shape[:2])
    # logits[mask] is [n_real, C] with the classes last, as F.cross_entropy expects, and
    # the padded targets (possibly out of range) never reach it.
    total = F.cross_entropy(logits[mask], target[mask], reduction="sum")
    # Divide by the token count of the whole batch, not per sequence; no tokens gives 0.
    return total / mask.sum().clamp(min=1)
