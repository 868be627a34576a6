"""Ids of the no-decay parameters gathered from every module's own parameters (duplicates
kept), a filter over model.parameters(), and AdamW built from group dicts and **kwargs."""

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


def _no_decay_ids(model: nn.Module) -> set[int]:
    ids: set[int] = set()
    for module in model.modules():
        whole_layer = isinstance(module, NO_DECAY_LAYERS)
        own = module.named_parameters(recurse=False, remove_duplicate=False)
        ids.update(id(p) for name, p in own if whole_layer or name.endswith("bias"))
    return ids


def decay_groups(model: nn.Module) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
    skip = _no_decay_ids(model)
    trainable = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in trainable if id(p) not in skip]
    no_decay = [p for p in trainable if id(p) in skip]
    return decay, no_decay


def make_optimizer(model: nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    decay, no_decay = decay_groups(model)
    settings: dict[str, Any] = {"lr": lr, "weight_decay": weight_decay}
    groups = [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, **settings)
