"""Wrong: picks the last step by masking and summing over time, so inf/NaN padding
leaks in and small integer or bool features come back as int64 (sum promotes them)."""

import torch


def last_valid(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    # gather wants an index of x's rank: [B, 1, D], the same time step for every feature.
    last = torch.arange(x.shape[1], device=x.device) == (lengths - 1)[:, None]
    return (x * last[..., None]).sum(1)


def valid_steps(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    # [T] < [B, 1] broadcasts to the [B, T] mask; a boolean index over the first two dims
    # keeps the True positions in row-major order: batch first, then time.
    mask = torch.arange(x.shape[1], device=x.device) < lengths[:, None]
    return x[mask]


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] % 2:
        raise ValueError(f"the last dim must have even size, got {x.shape[-1]}")
    # `...` keeps every leading dim; the new last dim of 2 interleaves the pairs again.
    first, second = x[..., 0::2], x[..., 1::2]
    return torch.stack((-second, first), dim=-1).flatten(-2)


def batch_histogram(labels: torch.Tensor, num_bins: int) -> torch.Tensor:
    counts = torch.zeros(labels.shape[0], num_bins, dtype=torch.int64, device=labels.device)
    # scatter_add_ adds 1 at counts[b, labels[b, j]] for every j, repeats included.
    return counts.scatter_add_(1, labels, torch.ones_like(labels))
