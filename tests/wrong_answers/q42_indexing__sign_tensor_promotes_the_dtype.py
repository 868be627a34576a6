"""Wrong: multiplies the swapped pairs by an int64 sign tensor, which promotes int8
and int32 to int64."""

import torch


def last_valid(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    # gather wants an index of x's rank: [B, 1, D], the same time step for every feature.
    index = (lengths - 1).view(-1, 1, 1).expand(-1, 1, x.shape[-1])
    return x.gather(1, index).squeeze(1)


def valid_steps(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    # [T] < [B, 1] broadcasts to the [B, T] mask; a boolean index over the first two dims
    # keeps the True positions in row-major order: batch first, then time.
    mask = torch.arange(x.shape[1], device=x.device) < lengths[:, None]
    return x[mask]


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] % 2:
        raise ValueError(f"the last dim must have even size, got {x.shape[-1]}")
    # `...` keeps every leading dim; the new last dim of 2 interleaves the pairs again.
    signs = torch.tensor([-1, 1], device=x.device)
    swapped = x.reshape(*x.shape[:-1], -1, 2).flip(-1)
    return (swapped * signs).reshape(x.shape)


def batch_histogram(labels: torch.Tensor, num_bins: int) -> torch.Tensor:
    counts = torch.zeros(labels.shape[0], num_bins, dtype=torch.int64, device=labels.device)
    # scatter_add_ adds 1 at counts[b, labels[b, j]] for every j, repeats included.
    return counts.scatter_add_(1, labels, torch.ones_like(labels))
