"""Parameters deduplicated by dict.fromkeys and counted with map; buffer names from
named_buffers(remove_duplicate=False) matched against the state_dict; the prefix cut by a regex."""

import re
from collections.abc import Mapping

import torch
from torch import nn

_WRAPPER_PREFIX = re.compile(r"^module\.")


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    # model.parameters() already yields each Parameter object once; dict.fromkeys keeps it so
    # (Parameters hash by identity) and states the intent.
    unique = dict.fromkeys(model.parameters())
    chosen = (p for p in unique if p.requires_grad or not trainable_only)
    return int(sum(map(torch.Tensor.numel, chosen)))


def buffer_keys(model: nn.Module) -> list[str]:
    # Every name a buffer is reachable by, shared ones included; non-persistent and None
    # buffers drop out because the state_dict has no entry for them.
    names = frozenset(name for name, _ in model.named_buffers(remove_duplicate=False))
    return [key for key in model.state_dict(keep_vars=True) if key in names]


def load_checkpoint(model: nn.Module, state_dict: Mapping[str, torch.Tensor]) -> nn.Module:
    if all(_WRAPPER_PREFIX.match(key) for key in state_dict):
        stripped = {
            _WRAPPER_PREFIX.sub("", key, count=1): value for key, value in state_dict.items()
        }
    else:
        stripped = dict(state_dict)
    model.load_state_dict(stripped, strict=True)
    return model
