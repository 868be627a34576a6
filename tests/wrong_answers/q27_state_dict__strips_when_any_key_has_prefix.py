"""Wrong: strips the prefix when any key starts with "module.", so an unwrapped model with a
submodule called "module" no longer loads."""

from collections.abc import Mapping

import torch
from torch import nn

from solutions.q27_state_dict import (  # the rest as in the reference
    WRAPPER_PREFIX,
    buffer_keys,
    count_parameters,
)


def load_checkpoint(model: nn.Module, state_dict: Mapping[str, torch.Tensor]) -> nn.Module:
    if any(key.startswith(WRAPPER_PREFIX) for key in state_dict):
        # A new dict: the caller's checkpoint stays as it was. removeprefix strips the
        # leading prefix only, so a submodule that is itself called "module" survives.
        state_dict = {key.removeprefix(WRAPPER_PREFIX): value for key, value in state_dict.items()}
    # strict=True turns any mismatch into an error instead of a silently half-loaded model;
    # load_state_dict copies into the existing tensors, so device and dtype stay the model's.
    model.load_state_dict(state_dict, strict=True)
    return model
