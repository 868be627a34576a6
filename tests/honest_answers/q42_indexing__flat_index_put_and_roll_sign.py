"""gather with an index expanded over the features; masked_select of a broadcast mask viewed
back to [total, D]; pairs rotated by unflatten, roll and a sign vector; counts with a flat
index_put_(accumulate=True)."""

import torch


def last_valid(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    B, _, D = x.shape
    index = (lengths - 1).view(B, 1, 1).expand(B, 1, D)
    return torch.gather(x, 1, index).squeeze(1)


def valid_steps(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    _, T, D = x.shape
    steps = torch.arange(T, device=x.device)
    mask = lengths.unsqueeze(-1) > steps  # [B, 1] against [T]: [B, T]
    picked = torch.masked_select(x, mask.unsqueeze(-1))  # mask broadcast over D
    return picked.view(int(lengths.sum()), D)


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] % 2:
        raise ValueError(f"the last dimension must be even, got {x.shape[-1]}")
    pairs = x[..., :].unflatten(-1, (-1, 2))  # [..., K, 2]
    sign = torch.tensor([-1, 1], dtype=x.dtype, device=x.device)
    return (pairs.roll(1, dims=-1) * sign).flatten(-2)  # (a, b) -> (b, a) -> (-b, a)


def batch_histogram(labels: torch.Tensor, num_bins: int) -> torch.Tensor:
    B = labels.shape[0]
    out = torch.zeros(B * num_bins, dtype=torch.int64, device=labels.device)
    rows = torch.arange(B, device=labels.device).unsqueeze(1) * num_bins
    flat = (rows + labels).reshape(-1)
    out.index_put_((flat,), torch.ones_like(flat), accumulate=True)
    return out.view(B, num_bins)
