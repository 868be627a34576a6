"""Walk every module's own _parameters dict (all names), id set of no-decay."""

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


def _no_decay_ids(model: nn.Module) -> set[int]:
    ids: set[int] = set()
    for module in model.modules():
        layer_says_no = isinstance(module, _NO_DECAY_LAYERS)
        for name, param in module._parameters.items():
            if param is None:
                continue
            if layer_says_no or name.endswith("bias"):
                ids.add(id(param))
    return ids


def decay_groups(model: nn.Module) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
    skip = _no_decay_ids(model)
    decay: list[nn.Parameter] = []
    no_decay: list[nn.Parameter] = []
    for param in model.parameters():
        if not param.requires_grad:
            continue
        (no_decay if id(param) in skip else decay).append(param)
    return decay, no_decay


def make_optimizer(model: nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    decay, no_decay = decay_groups(model)
    groups = [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=lr, weight_decay=weight_decay)
