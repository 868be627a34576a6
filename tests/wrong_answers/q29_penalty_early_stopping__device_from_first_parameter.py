"""Wrong: takes the dtype and device from next(model.parameters()), which fails for a model
without parameters instead of giving a float32 zero on the CPU."""

import torch

from solutions.q29_penalty_early_stopping import EarlyStopping


def weight_penalty(model, l1=0.0, l2=0.0):
    if l1 < 0 or l2 < 0:
        raise ValueError(f"penalty strengths must be >= 0, got l1={l1}, l2={l2}")
    first = next(model.parameters())
    penalty = torch.zeros((), dtype=first.dtype, device=first.device)
    for w in model.parameters():
        if w.dim() >= 2:
            penalty = penalty + l1 * w.abs().sum() + l2 * w.pow(2).sum()
    return penalty
