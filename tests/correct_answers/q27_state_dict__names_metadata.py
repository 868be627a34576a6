"""Correct: generator sums, buffer-name set filter, OrderedDict strip that keeps _metadata."""

from collections import OrderedDict
from collections.abc import Mapping

import torch
from torch import nn

_PREFIX = "module."


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    return int(sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only))


def buffer_keys(model: nn.Module) -> list[str]:
    names = {name for name, _ in model.named_buffers(remove_duplicate=False)}
    return [key for key in model.state_dict() if key in names]


def _strip_metadata(metadata: dict) -> dict:
    stripped = {}
    for key, value in metadata.items():
        if key == "module":
            stripped[""] = value
        elif key.startswith(_PREFIX):
            stripped[key[len(_PREFIX) :]] = value
    return stripped


def load_checkpoint(model: nn.Module, state_dict: Mapping[str, torch.Tensor]) -> nn.Module:
    keys = list(state_dict.keys())
    if keys and all(key.startswith(_PREFIX) for key in keys):
        fixed: Mapping[str, torch.Tensor] = OrderedDict(
            (key[len(_PREFIX) :], value) for key, value in state_dict.items()
        )
        metadata = getattr(state_dict, "_metadata", None)
        if metadata is not None:
            fixed._metadata = _strip_metadata(metadata)  # type: ignore[attr-defined]
    else:
        fixed = state_dict
    model.load_state_dict(fixed, strict=True)
    return model
