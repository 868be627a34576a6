"""Wrong: files each parameter under every module that holds it, so a tied weight (an
embedding reused by the output Linear) lands in both groups."""

import torch

from solutions.q14_param_groups import _NO_DECAY_LAYERS


def decay_groups(model):
    decay, no_decay = [], []
    for module in model.modules():
        for name, p in module.named_parameters(recurse=False):
            if not p.requires_grad:
                continue
            if name.endswith("bias") or isinstance(module, _NO_DECAY_LAYERS):
                no_decay.append(p)
            else:
                decay.append(p)
    return decay, no_decay


def make_optimizer(model, lr, weight_decay):
    decay, no_decay = decay_groups(model)
    groups = [{"params": decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, weight_decay=weight_decay)
