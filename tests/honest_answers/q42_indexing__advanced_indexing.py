"""Advanced indexing with arange, a mask by comparison, stacked pairs, keyword scatter_add_."""

import torch


def last_valid(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    rows = torch.arange(x.shape[0], device=x.device)
    return x[rows, lengths.to(x.device) - 1]


def valid_steps(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    steps = torch.arange(x.size(1), device=x.device).expand(x.size(0), -1)
    keep = steps < lengths.unsqueeze(1)
    return x[keep]


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    if x.size(-1) % 2 == 1:
        raise ValueError("odd last dimension")
    pairs = x.unflatten(-1, (-1, 2))
    even, odd = pairs.unbind(-1)
    return torch.stack([-odd, even], dim=-1).flatten(start_dim=-2)


def batch_histogram(labels: torch.Tensor, num_bins: int) -> torch.Tensor:
    counts = labels.new_zeros((labels.size(0), num_bins), dtype=torch.int64)
    return counts.scatter_add_(dim=1, index=labels, src=torch.ones_like(labels))
