"""Correct: the dropout mask drawn by Tensor.bernoulli_ with the keep probability, the scale
0 at p = 1; validation that rejects NaN through math.isnan."""

import math

import torch

# the rest as in the reference
from solutions.q29_penalty_early_stopping import EarlyStopping, weight_penalty

__all__ = ["EarlyStopping", "dropout", "weight_penalty"]


def dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    if math.isnan(p) or not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be in [0, 1], got {p}")
    if not training:
        return x
    keep = torch.empty_like(x).bernoulli_(1.0 - p)
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    return x * (keep * scale)
