"""Wrong: converts lengths to int32 before checking them, so 2**32 + 1 wraps to 1."""

import torch

from solutions.q22_masked_sequence_loss import (  # the rest as in the reference
    masked_cross_entropy,
    masked_mse,
)


def length_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    dtype = lengths.dtype
    if lengths.dim() != 1 or dtype == torch.bool or dtype.is_floating_point or dtype.is_complex:
        raise ValueError(
            f"lengths must be a 1-D integer tensor, got {lengths.dtype} {tuple(lengths.shape)}"
        )
    if max_len < 0:
        raise ValueError(f"max_len must be >= 0, got {max_len}")
    lengths = lengths.int()
    if lengths.numel() and (lengths.min() < 0 or lengths.max() > max_len):
        raise ValueError(f"lengths must lie in [0, {max_len}], got {lengths.tolist()}")
    positions = torch.arange(max_len, device=lengths.device)
    return positions < lengths.unsqueeze(1)
