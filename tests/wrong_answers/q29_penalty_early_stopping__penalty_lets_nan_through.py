"""Wrong: checks `l1 < 0 or l2 < 0`, which a NaN strength passes, so the penalty is NaN."""

import torch

from solutions.q29_penalty_early_stopping import EarlyStopping  # the rest as in the reference


def weight_penalty(model, l1=0.0, l2=0.0):
    if l1 < 0 or l2 < 0:
        raise ValueError(f"penalty strengths must be >= 0, got l1={l1}, l2={l2}")
    parameters = list(model.parameters())
    penalty = parameters[0].new_zeros(()) if parameters else torch.zeros((), device="cpu")
    for w in (p for p in parameters if p.dim() >= 2):
        penalty = penalty + l1 * w.abs().sum() + l2 * w.pow(2).sum()
    return penalty
