"""Parameters deduplicated by id; buffer names built by walking every module under every name."""

from collections.abc import Mapping

import torch
from torch import nn

_WRAPPER_PREFIX = "module."


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    unique: dict[int, nn.Parameter] = {}
    for _, param in model.named_parameters(remove_duplicate=False):
        unique.setdefault(id(param), param)
    return sum(p.numel() for p in unique.values() if p.requires_grad or not trainable_only)


def buffer_keys(model: nn.Module) -> list[str]:
    names: set[str] = set()
    for module_name, module in model.named_modules(remove_duplicate=False):
        for buffer_name, _ in module.named_buffers(recurse=False, remove_duplicate=False):
            names.add(f"{module_name}.{buffer_name}" if module_name else buffer_name)
    return [key for key in model.state_dict() if key in names]


def load_checkpoint(model: nn.Module, state_dict: Mapping[str, torch.Tensor]) -> nn.Module:
    keys = list(state_dict)
    if all(key.startswith(_WRAPPER_PREFIX) for key in keys):
        cut = len(_WRAPPER_PREFIX)
        cleaned = {key[cut:]: state_dict[key] for key in keys}
    else:
        cleaned = dict(state_dict)
    model.load_state_dict(cleaned, strict=True)
    return model
