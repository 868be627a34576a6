"""A recursive walk over named_children collecting no-decay ids, then a partition by filter."""

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


def _collect_exempt(module: nn.Module, exempt: set[int]) -> None:
    whole_layer = isinstance(module, _NO_DECAY_LAYERS)
    for name, param in module.named_parameters(recurse=False, remove_duplicate=False):
        if whole_layer or name.endswith("bias"):
            exempt.add(id(param))
    for _, child in module.named_children():
        _collect_exempt(child, exempt)


def decay_groups(model: nn.Module) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
    exempt: set[int] = set()
    _collect_exempt(model, exempt)
    trainable = [p for p in model.parameters() if p.requires_grad]
    decay = list(filter(lambda p: id(p) not in exempt, trainable))
    no_decay = list(filter(lambda p: id(p) in exempt, trainable))
    return decay, no_decay


def make_optimizer(model: nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    # `not x >= 0` also rejects NaN, as AdamW's own check does.
    if not lr >= 0:
        raise ValueError(f"lr must be >= 0, got {lr}")
    if not weight_decay >= 0:
        raise ValueError(f"weight_decay must be >= 0, got {weight_decay}")
    decay, no_decay = decay_groups(model)
    groups = [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=lr)
