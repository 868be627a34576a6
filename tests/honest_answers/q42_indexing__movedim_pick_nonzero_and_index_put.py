"""Time moved to the front for an integer index per dimension, a mask from torch.lt and
indexing with its nonzero() coordinates, pairs written into an empty_like result through
strided slices, and index_put_ with accumulate=True at (row, label) pairs."""

import torch


def last_valid(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    rows = torch.arange(x.shape[0], device=x.device)
    # [T, B, D] indexed by (step, row) pairs: the picks come out as [B, D]
    return x.movedim(1, 0)[lengths - 1, rows]


def valid_steps(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    steps = torch.arange(x.shape[1], device=x.device)
    mask = torch.lt(steps.unsqueeze(0), lengths.unsqueeze(1))  # [B, T] by broadcasting
    b, t = mask.nonzero(as_tuple=True)  # row-major: sequence 0's steps first, in order
    return x[b, t]


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] % 2:
        raise ValueError(f"the last dimension must have even size, got {x.shape[-1]}")
    out = torch.empty_like(x)
    out[..., 0::2] = -x[..., 1::2]
    out[..., 1::2] = x[..., 0::2]
    return out


def batch_histogram(labels: torch.Tensor, num_bins: int) -> torch.Tensor:
    batch = labels.shape[0]
    rows = torch.arange(batch, device=labels.device).unsqueeze(1).expand_as(labels)
    counts = torch.zeros(batch, num_bins, dtype=torch.int64, device=labels.device)
    ones = torch.ones(labels.shape, dtype=torch.int64, device=labels.device)
    return counts.index_put_((rows, labels), ones, accumulate=True)
