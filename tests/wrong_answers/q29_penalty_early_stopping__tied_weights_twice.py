"""Wrong: walks the modules and sums each one's own weights, so a weight shared by two
modules (tied embedding and output layer) is penalised twice."""

import torch

from solutions.q29_penalty_early_stopping import EarlyStopping


def weight_penalty(model, l1=0.0, l2=0.0):
    if l1 < 0 or l2 < 0:
        raise ValueError(f"penalty strengths must be >= 0, got l1={l1}, l2={l2}")
    parameters = list(model.parameters())
    penalty = parameters[0].new_zeros(()) if parameters else torch.zeros(())
    for module in model.modules():
        for w in module.parameters(recurse=False):
            if w.dim() >= 2:
                penalty = penalty + l1 * w.abs().sum() + l2 * w.pow(2).sum()
    return penalty
