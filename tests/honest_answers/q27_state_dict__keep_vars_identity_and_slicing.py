"""Buffers found by identity in state_dict(keep_vars=True), a set of Parameters, key slicing."""

from collections.abc import Mapping

import torch
from torch import nn

_PREFIX = "module."


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    params = set(model.parameters())
    if trainable_only:
        params = {p for p in params if p.requires_grad}
    total = 0
    for p in params:
        total += p.numel()
    return total


def buffer_keys(model: nn.Module) -> list[str]:
    buffer_ids = {id(b) for b in model.buffers(recurse=True)}
    # Extra state may be any tensor, even a buffer object: skip the keys of the modules
    # that define get_extra_state, and only those.
    extra = {
        f"{name}._extra_state" if name else "_extra_state"
        for name, module in model.named_modules(remove_duplicate=False)
        if type(module).get_extra_state is not nn.Module.get_extra_state
    }
    keys = []
    for key, value in model.state_dict(keep_vars=True).items():
        if key in extra:
            continue
        is_buffer = isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter)
        if is_buffer and id(value) in buffer_ids:
            keys.append(key)
    return keys


def load_checkpoint(model: nn.Module, state_dict: Mapping[str, torch.Tensor]) -> nn.Module:
    wrapped = len(state_dict) > 0 and all(k.startswith(_PREFIX) for k in state_dict)
    if wrapped:
        renamed = {key[len(_PREFIX) :]: value for key, value in state_dict.items()}
    else:
        renamed = dict(state_dict)
    model.load_state_dict(renamed)
    return model
