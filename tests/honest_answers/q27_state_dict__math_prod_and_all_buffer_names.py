"""count_parameters multiplies out each shape with math.prod over
named_parameters(); buffer_keys filters the state_dict by the set of every name
named_buffers(remove_duplicate=False) gives; load_checkpoint slices the prefix off."""

import math
from collections.abc import Mapping

import torch
from torch import nn

_PREFIX = "module."


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    total = 0
    for _name, param in model.named_parameters():  # each Parameter object once
        if trainable_only and not param.requires_grad:
            continue
        total += math.prod(param.shape)  # one per element, complex ones too
    return int(total)


def buffer_keys(model: nn.Module) -> list[str]:
    # Every name a buffer is reachable by, shared ones under each name; None buffers are
    # skipped, and non-persistent ones are not state_dict keys, so the filter drops them.
    names = {name for name, _ in model.named_buffers(remove_duplicate=False)}
    return [key for key in model.state_dict() if key in names]


def load_checkpoint(model: nn.Module, state_dict: Mapping[str, torch.Tensor]) -> nn.Module:
    keys = list(state_dict)
    if all(key.startswith(_PREFIX) for key in keys):
        cleaned = {key[len(_PREFIX) :]: state_dict[key] for key in keys}
    else:
        cleaned = dict(state_dict)
    model.load_state_dict(cleaned, strict=True)
    return model
