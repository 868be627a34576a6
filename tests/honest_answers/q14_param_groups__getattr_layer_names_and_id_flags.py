"""Layer classes by getattr from a name table, an id -> flag dict, groups by zip."""

import torch
from torch import nn

_NO_DECAY_LAYER_NAMES = (
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm",
    "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
    "LayerNorm", "GroupNorm", "RMSNorm", "Embedding", "EmbeddingBag",
)  # fmt: skip
_NO_DECAY_LAYERS = tuple(getattr(nn, name) for name in _NO_DECAY_LAYER_NAMES)


def decay_groups(model: nn.Module) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
    """Flag every parameter by id across all its holders and names, then split in order."""
    no_decay: dict[int, bool] = {}
    for module in model.modules():
        held_by_layer = isinstance(module, _NO_DECAY_LAYERS)
        for name, param in module.named_parameters(recurse=False, remove_duplicate=False):
            flag = held_by_layer or name.endswith("bias")
            no_decay[id(param)] = no_decay.get(id(param), False) or flag
    trainable = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in trainable if not no_decay.get(id(p), False)]
    keep = [p for p in trainable if no_decay.get(id(p), False)]
    return decay, keep


def make_optimizer(model: nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    """Two groups in a fixed order; lr and weight_decay also become AdamW's defaults."""
    groups = [
        {"params": params, "weight_decay": wd}
        for params, wd in zip(decay_groups(model), (weight_decay, 0.0), strict=True)
    ]
    return torch.optim.AdamW(groups, lr=lr, weight_decay=weight_decay)
