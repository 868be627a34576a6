"""Wrong: rejects only floating and complex lengths, so a bool mask passed as lengths is
taken for lengths of 0 and 1."""

import torch

from solutions.q22_masked_sequence_loss import masked_cross_entropy, masked_mse


def length_mask(lengths, max_len):
    if lengths.dim() != 1 or lengths.is_floating_point() or lengths.is_complex():
        raise ValueError(f"lengths must be a 1-D integer tensor, got {lengths.dtype}")
    if max_len < 0:
        raise ValueError(f"max_len must be >= 0, got {max_len}")
    if lengths.numel() and (lengths.min() < 0 or lengths.max() > max_len):
        raise ValueError(f"lengths must lie in [0, {max_len}]")
    return torch.arange(max_len, device=lengths.device) < lengths.unsqueeze(1)
