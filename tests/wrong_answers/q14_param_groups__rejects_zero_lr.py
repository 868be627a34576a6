"""Wrong: rejects lr <= 0, but lr = 0 is a valid learning rate (AdamW takes it); only a
negative lr is an error."""

import torch

from solutions.q14_param_groups import decay_groups


def make_optimizer(model, lr, weight_decay):
    if lr <= 0 or weight_decay < 0:
        raise ValueError(f"need lr > 0 and weight_decay >= 0, got {lr}, {weight_decay}")
    decay, no_decay = decay_groups(model)
    return torch.optim.AdamW(
        [{"params": decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=lr,
        weight_decay=weight_decay,
    )
