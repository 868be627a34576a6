"""Wrong: without weights the penalty is a float32 zero on the CPU, whatever the dtype and
device of the model's parameters."""

import torch
from torch import nn

from solutions.q29_penalty_early_stopping import EarlyStopping  # the rest as in the reference


def weight_penalty(model: nn.Module, l1: float = 0.0, l2: float = 0.0) -> torch.Tensor:
    if l1 < 0 or l2 < 0:
        raise ValueError(f"penalty strengths must be >= 0, got l1={l1}, l2={l2}")
    # Weight matrices and kernels have >= 2 dims; biases and norm scales/shifts have 1.
    weights = [p for p in model.parameters() if p.dim() >= 2]
    # Start from a zero of the right dtype and device, so an empty list still works.
    penalty = weights[0].new_zeros(()) if weights else torch.zeros(())
    for w in weights:
        penalty = penalty + l1 * w.abs().sum() + l2 * w.pow(2).sum()
    return penalty
