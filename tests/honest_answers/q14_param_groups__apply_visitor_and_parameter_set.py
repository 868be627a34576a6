"""A visitor run by Module.apply that collects the no-decay Parameters in a set (tensors hash
by identity), the split indexed by a bool, and the decay group inheriting AdamW's defaults."""

from typing import Any

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


def decay_groups(model: nn.Module) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
    no_decay: set[nn.Parameter] = set()

    def visit(module: nn.Module) -> None:
        holder = issubclass(type(module), NO_DECAY_LAYERS)
        # remove_duplicate=False: every name a parameter has in this module, not the first.
        for name, param in module.named_parameters(recurse=False, remove_duplicate=False):
            if holder or name.endswith("bias"):
                no_decay.add(param)

    model.apply(visit)
    split: tuple[list[nn.Parameter], list[nn.Parameter]] = ([], [])
    for param in model.parameters():
        if param.requires_grad:
            split[param in no_decay].append(param)
    return split


def make_optimizer(model: nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    decay, no_decay = decay_groups(model)
    groups: list[dict[str, Any]] = [{"params": decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, weight_decay=weight_decay)
