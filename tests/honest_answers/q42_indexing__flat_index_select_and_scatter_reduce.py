"""A row-major flat index with index_select, a mask by comparison operators, pairs viewed as
[..., K, 2] and flipped with a sign, and scatter_reduce(sum) out of place."""

import torch


def last_valid(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    b, t, d = x.shape
    rows = torch.arange(b, device=x.device) * t + (lengths - 1)
    return x.reshape(b * t, d).index_select(0, rows)


def valid_steps(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    mask = torch.arange(x.size(1), device=lengths.device)[None, :] < lengths[:, None]
    return x[mask]


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    *lead, width = x.shape
    if width % 2 != 0:
        raise ValueError("rotate_pairs needs an even last dimension")
    pairs = x.reshape(*lead, width // 2, 2)
    sign = torch.tensor([-1, 1], dtype=x.dtype, device=x.device)
    return (pairs.flip(-1) * sign).reshape(x.shape)


def batch_histogram(labels: torch.Tensor, num_bins: int) -> torch.Tensor:
    base = labels.new_zeros((labels.shape[0], num_bins), dtype=torch.long)
    return base.scatter_reduce(1, labels, torch.ones_like(labels, dtype=torch.long), reduce="sum")
