"""torch.func.vmap over the batch: a 0-dim index per sequence for the last step, a scatter_add
per row for the histogram (vmap batches both into one op); the mask from torch.lt of an
expanded arange; pairs rotated with torch.stack of negated odd and even slices."""

import torch
from torch.func import vmap


def _last(sequence: torch.Tensor, length: torch.Tensor) -> torch.Tensor:
    return sequence[length - 1]


def last_valid(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    if lengths.numel() == 0:  # vmap maps over no empty batch: two empty indices pick nothing
        return x[lengths, lengths]
    return vmap(_last)(x, lengths)


def valid_steps(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    B, T = x.shape[:2]
    steps = torch.arange(T, device=lengths.device).expand(B, T)
    return x[torch.lt(steps, lengths[:, None])]


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    if x.size(-1) % 2 != 0:
        raise ValueError("rotate_pairs needs an even last dimension")
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((torch.neg(odd), even), dim=-1).flatten(start_dim=-2)


def batch_histogram(labels: torch.Tensor, num_bins: int) -> torch.Tensor:
    def row_counts(row: torch.Tensor) -> torch.Tensor:
        zeros = row.new_zeros(num_bins)
        return zeros.scatter_add(0, row, torch.ones_like(row))

    return vmap(row_counts)(labels)
