"""Correct: parameters counted by id, buffers named module by module, keys sliced."""

from collections.abc import Mapping

import torch
from torch import nn


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    seen: dict[int, int] = {}
    for _, parameter in model.named_parameters():
        if trainable_only and not parameter.requires_grad:
            continue
        seen[id(parameter)] = parameter.numel()
    return sum(seen.values())


def buffer_keys(model: nn.Module) -> list[str]:
    names = set()
    for module_name, module in model.named_modules(remove_duplicate=False):
        for buffer_name, _ in module.named_buffers(recurse=False):
            names.add(f"{module_name}.{buffer_name}" if module_name else buffer_name)
    return [key for key in model.state_dict() if key in names]


def load_checkpoint(model: nn.Module, state_dict: Mapping[str, torch.Tensor]) -> nn.Module:
    keys = list(state_dict)
    if keys and all(key[: len("module.")] == "module." for key in keys):
        state_dict = {key[len("module.") :]: state_dict[key] for key in keys}
    model.load_state_dict(state_dict)
    return model
