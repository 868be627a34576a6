"""Broadcast integer indices for all three dimensions in last_valid, the mask from torch.gt,
pairs unflattened, flipped and multiplied by a (-1, 1) sign row, and scatter_add with an expanded
scalar of ones as its source."""

import torch


def last_valid(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    B, _, D = x.shape
    rows = torch.arange(B, device=x.device).unsqueeze(1)  # [B, 1]
    steps = (lengths - 1).unsqueeze(1)  # [B, 1]
    features = torch.arange(D, device=x.device)  # [D]
    return x[rows, steps, features]  # the three broadcast to [B, D]


def valid_steps(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    T = x.shape[1]
    mask = torch.gt(lengths.unsqueeze(1), torch.arange(T, device=x.device))  # [B, T]
    return x[mask]


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] % 2:
        raise ValueError(f"the last dimension must have even size, got {x.shape[-1]}")
    pairs = x.unflatten(-1, (-1, 2))  # [..., K, 2]: (a, b)
    sign = torch.tensor([-1, 1], dtype=x.dtype, device=x.device)
    return (pairs.flip(-1) * sign).flatten(-2)  # (b, a) * (-1, 1) = (-b, a)


def batch_histogram(labels: torch.Tensor, num_bins: int) -> torch.Tensor:
    counts = labels.new_zeros(labels.shape[0], num_bins)
    ones = labels.new_ones(()).expand_as(labels)
    return counts.scatter_add(1, labels, ones)
