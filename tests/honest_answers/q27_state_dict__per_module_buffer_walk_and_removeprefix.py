"""A generator over every (prefix, module) pair for the buffer names, parameters counted over a
set of ids, the prefix cut with str.removeprefix inside zip."""

from collections.abc import Iterator, Mapping

import torch
from torch import nn


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    seen: set[int] = set()
    total = 0
    for module in model.modules():
        for param in module.parameters(recurse=False):
            if id(param) in seen:
                continue
            seen.add(id(param))
            if trainable_only and not param.requires_grad:
                continue
            total += param.numel()
    return total


def _buffer_names(model: nn.Module) -> Iterator[str]:
    """Every dotted name a buffer is reachable by: each module under each of its names
    (named_children would visit a module registered twice in one parent only once)."""
    for prefix, module in model.named_modules(remove_duplicate=False):
        for name, buffer in module.named_buffers(recurse=False):
            if buffer is not None:
                yield f"{prefix}.{name}" if prefix else name


def buffer_keys(model: nn.Module) -> list[str]:
    names = set(_buffer_names(model))
    return [key for key in model.state_dict() if key in names]


def load_checkpoint(model: nn.Module, state_dict: Mapping[str, torch.Tensor]) -> nn.Module:
    keys = list(state_dict)
    if all(key.startswith("module.") for key in keys):
        keys = [key.removeprefix("module.") for key in keys]
    model.load_state_dict(dict(zip(keys, state_dict.values())), strict=True)
    return model
