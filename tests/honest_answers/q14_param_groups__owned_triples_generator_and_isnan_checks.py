"""A generator of every (module, own name, parameter) triple with duplicates kept, a set of
no-decay ids from one comprehension, and AdamW's arguments checked up front with math.isnan
before the two group dicts are built."""

import math
from collections.abc import Iterator

import torch
from torch import nn

_NO_DECAY_LAYERS = (
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


def _owned(model: nn.Module) -> Iterator[tuple[nn.Module, str, nn.Parameter]]:
    for _, module in model.named_modules(remove_duplicate=False):
        for name, param in module.named_parameters(recurse=False, remove_duplicate=False):
            yield module, name, param


def decay_groups(model: nn.Module) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
    no_decay = {
        id(param)
        for module, name, param in _owned(model)
        if name.endswith("bias") or isinstance(module, _NO_DECAY_LAYERS)
    }
    trainable = [param for param in model.parameters() if param.requires_grad]
    return (
        [p for p in trainable if id(p) not in no_decay],
        [p for p in trainable if id(p) in no_decay],
    )


def make_optimizer(model: nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    for label, value in (("lr", lr), ("weight_decay", weight_decay)):
        if math.isnan(value) or value < 0:
            raise ValueError(f"{label} must be a non-negative number, got {value}")
    decay, no_decay = decay_groups(model)
    return torch.optim.AdamW(
        [
            {"params": decay, "weight_decay": weight_decay},
            {"params": no_decay, "weight_decay": 0.0},
        ],
        lr=lr,
        weight_decay=weight_decay,
    )
