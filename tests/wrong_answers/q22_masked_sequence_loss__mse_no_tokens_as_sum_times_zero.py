"""Wrong: returns pred.sum() * 0 with no real token: nan when the padded values sum to inf."""

import math

import torch

from solutions.q22_masked_sequence_loss import (  # the rest as in the reference
    _accumulation_dtype,
    _check_mask,
    length_mask,
    masked_cross_entropy,
)


def masked_mse(pred: torch.Tensor, target: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    if pred.shape != target.shape or pred.dim() < 2:
        raise ValueError(
            f"pred and target must share a [B, T, ...] shape, got {tuple(pred.shape)} "
            f"and {tuple(target.shape)}"
        )
    _check_mask(mask, pred.shape[:2])
    if not mask.any():  # no real token: a zero that still has a graph to pred
        return pred.sum() * 0
    acc = _accumulation_dtype(pred.dtype)
    squared_error = (pred[mask].to(acc) - target[mask].to(acc)).square()
    features = math.prod(pred.shape[2:])
    return (squared_error.sum() / (mask.sum() * features).clamp(min=1)).to(pred.dtype)
