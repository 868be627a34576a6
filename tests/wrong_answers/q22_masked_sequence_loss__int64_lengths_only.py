"""Wrong: accepts only int64 lengths, although any integer dtype (int32, uint8) is allowed."""

import torch

from solutions.q22_masked_sequence_loss import (  # the rest as in the reference
    masked_cross_entropy,
    masked_mse,
)


def length_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    if lengths.dim() != 1 or lengths.dtype != torch.int64:
        raise ValueError(
            f"lengths must be a 1-D integer tensor, got {lengths.dtype} {tuple(lengths.shape)}"
        )
    if max_len < 0:
        raise ValueError(f"max_len must be >= 0, got {max_len}")
    if lengths.numel() and (lengths.min() < 0 or lengths.max() > max_len):
        raise ValueError(f"lengths must lie in [0, {max_len}], got {lengths.tolist()}")
    # [T] positions against [B, 1] lengths broadcast to [B, T]: real where t < length.
    positions = torch.arange(max_len, device=lengths.device)
    return positions < lengths.unsqueeze(1)
