"""Correct: take_along_dim, a flat nonzero index, unflatten/flip, index_add_ on flat bins."""

import torch


def last_valid(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    # take_along_dim broadcasts a [B, 1, 1] index over the features.
    return torch.take_along_dim(x, (lengths - 1)[:, None, None], dim=1)[:, 0]


def valid_steps(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    steps = torch.arange(x.shape[1], device=x.device)
    batch, time = (steps[None, :] < lengths[:, None]).nonzero(as_tuple=True)
    return x[batch, time]


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] % 2 != 0:
        raise ValueError("the last dimension must have even size")
    swapped = x.unflatten(-1, (x.shape[-1] // 2, 2)).flip(-1)  # (b, a)
    out = swapped.clone()
    out[..., 0] = -swapped[..., 0]
    return out.flatten(-2)


def batch_histogram(labels: torch.Tensor, num_bins: int) -> torch.Tensor:
    rows = labels.shape[0]
    counts = torch.zeros(rows * num_bins, dtype=torch.int64, device=labels.device)
    offsets = torch.arange(rows, device=labels.device)[:, None] * num_bins
    flat = (labels + offsets).reshape(-1)
    counts.index_add_(0, flat, torch.ones_like(flat))
    return counts.view(rows, num_bins)
