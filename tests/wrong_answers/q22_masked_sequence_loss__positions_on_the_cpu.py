"""Wrong: builds the positions with torch.arange(max_len) on the CPU, so the mask cannot be
made for lengths on an accelerator."""

import torch

from solutions.q22_masked_sequence_loss import (  # the rest as in the reference
    masked_cross_entropy,
    masked_mse,
)


def length_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    if lengths.dim() != 1 or lengths.is_floating_point() or lengths.is_complex():
        raise ValueError(
            f"lengths must be a 1-D integer tensor, got {lengths.dtype} {tuple(lengths.shape)}"
        )
    if max_len < 0:
        raise ValueError(f"max_len must be >= 0, got {max_len}")
    if lengths.numel() and (lengths.min() < 0 or lengths.max() > max_len):
        raise ValueError(f"lengths must lie in [0, {max_len}], got {lengths.tolist()}")
    # [T] positions against [B, 1] lengths broadcast to [B, T]: real where t < length.
    positions = torch.arange(max_len)
    return positions < lengths.unsqueeze(1)
