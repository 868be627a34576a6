"""Wrong: splits every parameter, frozen ones included, and hands them all to AdamW."""

import torch

from solutions.q14_param_groups import _NO_DECAY_LAYERS


def decay_groups(model):
    no_decay = {
        id(p)
        for module in model.modules()
        for name, p in module.named_parameters(recurse=False)
        if name.endswith("bias") or isinstance(module, _NO_DECAY_LAYERS)
    }
    every = list(model.parameters())
    return [p for p in every if id(p) not in no_decay], [p for p in every if id(p) in no_decay]


def make_optimizer(model, lr, weight_decay):
    decay, no_decay = decay_groups(model)
    groups = [{"params": decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, weight_decay=weight_decay)
