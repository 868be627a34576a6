"""Kata 3: the tensor operations that replace Python loops (reference answer)."""

import torch


def pairwise_sq_dists(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x_sq = x.pow(2).sum(dim=1, keepdim=True)  # [N, 1]
    y_sq = y.pow(2).sum(dim=1)  # [M], broadcasts as [1, M]
    # All N*M dot products in one matrix product; the sum broadcasts to [N, M].
    dists = x_sq + y_sq - 2 * (x @ y.mT)
    # Cancellation can leave tiny negatives where points coincide; a distance cannot be.
    return dists.clamp_min(0)


def standardize_columns(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    # Reduce over the rows (dim 0); keepdim gives [1, D], which broadcasts over the rows.
    mean = x.mean(dim=0, keepdim=True)
    # correction=0: the population variance. torch.var is stable for large offsets,
    # unlike mean(x**2) - mean(x)**2.
    var = x.var(dim=0, correction=0, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps)  # out of place: x stays as it was


def batched_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    # .mT swaps the last two dims whatever the rank; `@` broadcasts the batch dims.
    return q @ k.mT


def to_patches(images: torch.Tensor, patch: int) -> torch.Tensor:
    n, c, h, w = images.shape
    grid = images.reshape(n, c, h // patch, patch, w // patch, patch)
    # The grid dims go in front of the channels: a reshape never moves elements, a permute
    # does. The permuted tensor is not contiguous, so the last step is reshape, not view.
    grid = grid.permute(0, 2, 4, 1, 3, 5)  # [N, H/p, W/p, C, p, p]
    return grid.reshape(n, (h // patch) * (w // patch), c * patch * patch)


def interleave_rows(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # stack adds a dim: [N, 2, ...] holds a[i] next to b[i]; merging N with it interleaves.
    return torch.stack((a, b), dim=1).flatten(0, 1)
