"""Wrong: rejects lengths with more than one dimension only, so a 0-dim length is taken
for a batch of one."""

import torch

from solutions.q22_masked_sequence_loss import masked_cross_entropy, masked_mse


def length_mask(lengths, max_len):
    if lengths.dim() > 1 or lengths.dtype == torch.bool or lengths.is_floating_point():
        raise ValueError(f"lengths must be a 1-D integer tensor, got {tuple(lengths.shape)}")
    if max_len < 0:
        raise ValueError(f"max_len must be >= 0, got {max_len}")
    if lengths.numel() and (lengths.min() < 0 or lengths.max() > max_len):
        raise ValueError(f"lengths must lie in [0, {max_len}]")
    return torch.arange(max_len, device=lengths.device) < lengths.view(-1, 1)
