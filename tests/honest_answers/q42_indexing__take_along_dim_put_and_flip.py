"""take_along_dim pick, torch.lt mask, flip with a sign row, put_ with accumulate."""

import torch


def last_valid(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    step = (lengths - 1).view(-1, 1, 1)
    return torch.take_along_dim(x, step, dim=1).squeeze(1)


def valid_steps(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    steps = torch.arange(x.shape[1], device=x.device)
    mask = torch.lt(steps.unsqueeze(0), lengths.unsqueeze(1))
    return x[mask]


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] % 2:
        raise ValueError(f"last dimension must be even, got {x.shape[-1]}")
    pairs = x.unflatten(-1, (x.shape[-1] // 2, 2))
    sign = torch.tensor([-1, 1], dtype=x.dtype, device=x.device)
    return (pairs.flip(-1) * sign).flatten(-2)


def batch_histogram(labels: torch.Tensor, num_bins: int) -> torch.Tensor:
    rows = labels.shape[0]
    offsets = torch.arange(rows, device=labels.device).unsqueeze(1) * num_bins
    counts = torch.zeros(rows, num_bins, dtype=torch.int64, device=labels.device)
    counts.put_(labels + offsets, torch.ones_like(labels), accumulate=True)
    return counts
