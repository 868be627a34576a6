"""A set of ids of no-decay parameters from every (module, name) pair, then one pass."""

import math

import torch
from torch import nn

NO_DECAY_LAYERS: tuple[type[nn.Module], ...] = (
    nn.BatchNorm1d,
    nn.BatchNorm2d,
    nn.BatchNorm3d,
    nn.SyncBatchNorm,
    nn.InstanceNorm1d,
    nn.InstanceNorm2d,
    nn.InstanceNorm3d,
    nn.LayerNorm,
    nn.GroupNorm,
    nn.RMSNorm,
    nn.Embedding,
    nn.EmbeddingBag,
)


def _no_decay_ids(model: nn.Module) -> set[int]:
    ids: set[int] = set()
    for module in model.modules():
        norm_like = isinstance(module, NO_DECAY_LAYERS)
        for name, param in module.named_parameters(recurse=False, remove_duplicate=False):
            if norm_like or name.endswith("bias"):
                ids.add(id(param))
    return ids


def decay_groups(model: nn.Module) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
    skip = _no_decay_ids(model)
    decay: list[nn.Parameter] = []
    no_decay: list[nn.Parameter] = []
    for param in model.parameters():
        if param.requires_grad:
            (no_decay if id(param) in skip else decay).append(param)
    return decay, no_decay


def make_optimizer(model: nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    for label, value in (("lr", lr), ("weight_decay", weight_decay)):
        if math.isnan(value) or value < 0:
            raise ValueError(f"{label} must be a non-negative number, got {value}")
    decay, no_decay = decay_groups(model)
    groups = [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=lr, weight_decay=weight_decay)
