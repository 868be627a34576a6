"""Wrong: compares the lengths with max_len in their own dtype, where 512 does not fit uint8
(and uint16/32/64 have no comparisons at all)."""

import torch

from solutions.q22_masked_sequence_loss import (  # the rest as in the reference
    masked_cross_entropy,
    masked_mse,
)


def length_mask(lengths, max_len):
    dtype = lengths.dtype
    if lengths.dim() != 1 or dtype == torch.bool or dtype.is_floating_point or dtype.is_complex:
        raise ValueError("lengths must be a 1-D integer tensor")
    if max_len < 0:
        raise ValueError(f"max_len must be >= 0, got {max_len}")
    if lengths.numel() and (lengths.min() < 0 or lengths.max() > max_len):
        raise ValueError(f"lengths must lie in [0, {max_len}]")
    return torch.arange(max_len, device=lengths.device) < lengths.unsqueeze(1)
