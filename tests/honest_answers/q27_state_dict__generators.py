"""Generators and sum(), a set of buffer names, str.startswith in all() with a tuple unpack."""

from collections.abc import Mapping

import torch
from torch import nn

_PREFIX = "module."


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    chosen = (p for p in model.parameters() if not trainable_only or p.requires_grad)
    return sum(p.numel() for p in chosen)


def buffer_keys(model: nn.Module) -> list[str]:
    buffers = {name for name, _ in model.named_buffers(remove_duplicate=False)}
    return list(filter(buffers.__contains__, model.state_dict().keys()))


def load_checkpoint(model: nn.Module, state_dict: Mapping[str, torch.Tensor]) -> nn.Module:
    keys = list(state_dict)
    if keys and all(key.startswith(_PREFIX) for key in keys):
        state_dict = {key[len(_PREFIX) :]: value for key, value in state_dict.items()}
    model.load_state_dict(dict(state_dict))
    return model
