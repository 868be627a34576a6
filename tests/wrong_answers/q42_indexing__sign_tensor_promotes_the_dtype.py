"""Wrong: multiplies the swapped pairs by an int64 sign tensor, which promotes int8
and int32 to int64."""

import torch

from solutions.q42_indexing import (  # the rest as in the reference
    batch_histogram,
    last_valid,
    valid_steps,
)


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] % 2:
        raise ValueError(f"the last dim must have even size, got {x.shape[-1]}")
    # `...` keeps every leading dim; the new last dim of 2 interleaves the pairs again.
    signs = torch.tensor([-1, 1], device=x.device)
    swapped = x.reshape(*x.shape[:-1], -1, 2).flip(-1)
    return (swapped * signs).reshape(x.shape)
