"""Parameters deduped by id, buffer names from named_buffers, consume_prefix_in_state_dict."""

from collections import OrderedDict
from collections.abc import Mapping

import torch
from torch import nn
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    seen: dict[int, nn.Parameter] = {}
    for _, p in model.named_parameters(remove_duplicate=False):
        if trainable_only and not p.requires_grad:
            continue
        seen.setdefault(id(p), p)
    return int(sum(p.numel() for p in seen.values()))


def buffer_keys(model: nn.Module) -> list[str]:
    names = {name for name, _ in model.named_buffers(remove_duplicate=False)}
    return [key for key in model.state_dict() if key in names]


def load_checkpoint(model: nn.Module, state_dict: Mapping[str, torch.Tensor]) -> nn.Module:
    entries: OrderedDict[str, torch.Tensor] = OrderedDict(state_dict.items())
    if entries and all(key.startswith("module.") for key in entries):
        consume_prefix_in_state_dict_if_present(entries, "module.")
    model.load_state_dict(entries, strict=True)
    return model
