"""Wrong: zeros_for calls torch.zeros with like's dtype but not its device, so on a GPU the
zeros are on the CPU."""

import torch

from solutions.q35_tensor_creation import (  # the rest as in the reference
    as_tensor_shared,
    from_data,
    scalar_like,
)


def zeros_for(shape: tuple[int, ...], like: torch.Tensor) -> torch.Tensor:
    # new_zeros takes dtype and device from like; unlike empty, it fills the memory.
    return torch.zeros(shape, dtype=like.dtype)
