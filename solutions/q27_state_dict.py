"""Kata 27: parameters() versus state_dict() (reference answer)."""

from collections.abc import Mapping

import torch
from torch import nn

WRAPPER_PREFIX = "module."  # what nn.DataParallel and DistributedDataParallel add


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    # parameters() yields each shared tensor once; state_dict() would repeat tied weights
    # and add the buffers.
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


def buffer_keys(model: nn.Module) -> list[str]:
    # remove_duplicate=False lists a shared buffer under every name, as state_dict does.
    # Selecting buffer names (rather than dropping parameter names) leaves out the
    # `_extra_state` entries, and non-persistent buffers are not in the state_dict at all.
    names = {name for name, _ in model.named_buffers(remove_duplicate=False)}
    return [key for key in model.state_dict() if key in names]


def load_checkpoint(model: nn.Module, state_dict: Mapping[str, torch.Tensor]) -> nn.Module:
    if state_dict and all(key.startswith(WRAPPER_PREFIX) for key in state_dict):
        # A new dict: the caller's checkpoint stays as it was. removeprefix strips the
        # leading prefix only, so a submodule that is itself called "module" survives.
        state_dict = {key.removeprefix(WRAPPER_PREFIX): value for key, value in state_dict.items()}
    # strict=True turns any mismatch into an error instead of a silently half-loaded model;
    # load_state_dict copies into the existing tensors, so device and dtype stay the model's.
    model.load_state_dict(state_dict, strict=True)
    return model
