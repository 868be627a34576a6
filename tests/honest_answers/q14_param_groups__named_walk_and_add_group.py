"""Explicit class list, named_parameters without dedup, add_param_group."""

import math

import torch
from torch import nn

NORM_AND_EMBEDDING = (
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


def _gets_no_decay(module: nn.Module, name: str) -> bool:
    return isinstance(module, NORM_AND_EMBEDDING) or name.endswith("bias")


def decay_groups(model: nn.Module) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
    # A parameter is spared if any (module, name) holding it says so.
    spared: dict[int, bool] = {}
    for _, module in model.named_modules(remove_duplicate=False):
        for name, param in module.named_parameters(recurse=False, remove_duplicate=False):
            key = id(param)
            spared[key] = spared.get(key, False) or _gets_no_decay(module, name)
    decay, no_decay = [], []
    for param in model.parameters():
        if param.requires_grad:
            if spared[id(param)]:
                no_decay.append(param)
            else:
                decay.append(param)
    return decay, no_decay


def make_optimizer(model: nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    for label, value in (("lr", lr), ("weight_decay", weight_decay)):
        if math.isnan(value) or value < 0:
            raise ValueError(f"{label} must be a non-negative number, got {value}")
    decay, no_decay = decay_groups(model)
    optimizer = torch.optim.AdamW([{"params": decay}], lr=lr, weight_decay=weight_decay)
    optimizer.add_param_group({"params": no_decay, "weight_decay": 0.0})
    return optimizer
