"""gather along the last dimension of the transposed batch, the mask from an expanded arange,
rotate_pairs as index_select with a swap permutation times a tiled sign row, and the counts from
the out-of-place Tensor.index_put with accumulate=True."""

import torch


def last_valid(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    B, _, D = x.shape
    index = (lengths - 1).view(B, 1, 1).expand(B, D, 1)
    return x.transpose(1, 2).gather(2, index).squeeze(2)


def valid_steps(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    B, T, _ = x.shape
    mask = torch.arange(T, device=x.device).expand(B, T) < lengths.view(B, 1)
    return x[mask]


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    size = x.shape[-1]
    if size % 2 != 0:
        raise ValueError(f"rotate_pairs needs an even last dimension, got {size}")
    # perm = [1, 0, 3, 2, ...] swaps each pair; the sign row [-1, 1, -1, 1, ...] negates the first.
    perm = torch.arange(size, device=x.device) ^ 1
    sign = torch.tensor([-1, 1], dtype=x.dtype, device=x.device).repeat(size // 2)
    return x.index_select(-1, perm) * sign


def batch_histogram(labels: torch.Tensor, num_bins: int) -> torch.Tensor:
    B, N = labels.shape
    rows = torch.arange(B, device=labels.device).unsqueeze(1).expand(B, N)
    ones = torch.ones(B, N, dtype=torch.int64, device=labels.device)
    counts = torch.zeros(B, num_bins, dtype=torch.int64, device=labels.device)
    return counts.index_put((rows, labels), ones, accumulate=True)
