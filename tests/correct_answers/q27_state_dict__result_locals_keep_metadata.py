"""Correct: a `result` local in each function, metadata kept on the freshly built OrderedDict."""

from collections import OrderedDict
from collections.abc import Mapping

import torch
from torch import nn


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    result = 0
    for param in model.parameters():
        if param.requires_grad or not trainable_only:
            result += param.numel()
    return result


def buffer_keys(model: nn.Module) -> list[str]:
    names = {name for name, _ in model.named_buffers(remove_duplicate=False)}
    result = model.state_dict()
    return [key for key in result if key in names]


def load_checkpoint(model: nn.Module, state_dict: Mapping[str, torch.Tensor]) -> nn.Module:
    if state_dict and all(key.startswith("module.") for key in state_dict):
        result = OrderedDict((key[len("module.") :], value) for key, value in state_dict.items())
        metadata = getattr(state_dict, "_metadata", None)
        if metadata is not None:
            result._metadata = {
                ("" if key == "module" else key[len("module.") :]): value
                for key, value in metadata.items()
                if key == "module" or key.startswith("module.")
            }
        state_dict = result
    model.load_state_dict(state_dict, strict=True)
    return model
