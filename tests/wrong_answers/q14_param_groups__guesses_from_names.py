"""Wrong: guesses the layer from the parameter's name ("norm", "bn", "ln", "emb" in it), so
a Linear called "normalizer" loses its decay and a BatchNorm called "stats" keeps it."""

import torch

HINTS = ("bias", "norm", "bn", "ln", "emb")


def decay_groups(model):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if p.requires_grad:
            (no_decay if any(hint in name for hint in HINTS) else decay).append(p)
    return decay, no_decay


def make_optimizer(model, lr, weight_decay):
    decay, no_decay = decay_groups(model)
    groups = [{"params": decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, weight_decay=weight_decay)
