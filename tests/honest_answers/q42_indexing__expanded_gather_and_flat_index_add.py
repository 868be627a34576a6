"""gather with an expanded index, a torch.lt broadcast mask, a cloned output filled through
strided slices, and index_add_ into the flattened counts with per-row offsets."""

import torch


def last_valid(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    batch, _, features = x.shape
    step = (lengths - 1).reshape(batch, 1, 1).expand(batch, 1, features)
    return torch.gather(x, 1, step).squeeze(1)


def valid_steps(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    steps = torch.arange(x.shape[1], device=x.device)
    mask = torch.lt(steps.unsqueeze(0), lengths.unsqueeze(1))
    return x[mask]


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] % 2:
        raise ValueError(f"last dimension must be even, got {x.shape[-1]}")
    out = x.clone()
    out[..., 0::2] = x[..., 1::2].neg()
    out[..., 1::2] = x[..., 0::2]
    return out


def batch_histogram(labels: torch.Tensor, num_bins: int) -> torch.Tensor:
    rows = labels.shape[0]
    offsets = torch.arange(rows, device=labels.device).unsqueeze(1) * num_bins
    flat = (labels + offsets).reshape(-1)
    counts = torch.zeros(rows * num_bins, dtype=torch.int64, device=labels.device)
    counts.index_add_(0, flat, torch.ones_like(flat))
    return counts.view(rows, num_bins)
