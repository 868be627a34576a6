"""Correct: one vote per (module, name) pair over the whole tree, without removing
duplicates, then a stable split by model.parameters()."""

import torch
from torch import nn

_KINDS = (
    nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.SyncBatchNorm,
    nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d,
    nn.LayerNorm, nn.GroupNorm, nn.RMSNorm, nn.Embedding, nn.EmbeddingBag,
)  # fmt: skip


def decay_groups(model):
    exempt = {}
    for _, module in model.named_modules(remove_duplicate=False):
        for name, param in module.named_parameters(recurse=False, remove_duplicate=False):
            vote = isinstance(module, _KINDS) or name.endswith("bias")
            exempt[id(param)] = exempt.get(id(param), False) or vote
    decay, no_decay = [], []
    for param in model.parameters():
        if param.requires_grad:
            (no_decay if exempt.get(id(param), False) else decay).append(param)
    return decay, no_decay


def make_optimizer(model, lr, weight_decay):
    decay, no_decay = decay_groups(model)
    groups = [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=lr, weight_decay=weight_decay)
