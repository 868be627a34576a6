"""Wrong: squares the errors in float16, where an error of 300 squares to inf."""

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
    acc = _accumulation_dtype(pred.dtype)
    squared_error = (pred[mask] - target[mask]).square()
    features = math.prod(pred.shape[2:])
    count = (mask.sum() * features).clamp(min=1)
    return (squared_error / count).sum(dtype=acc).to(pred.dtype)
