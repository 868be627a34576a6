"""Correct: var_mean and addmm in the inputs' own dtype, half precisions too (widening is
allowed, not required)."""

import torch


def pairwise_sq_dists(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x_sq = (x * x).sum(dim=1, keepdim=True)  # [N, 1]
    y_sq = (y * y).sum(dim=1).unsqueeze(0)  # [1, M]
    dists = torch.addmm(x_sq + y_sq, x, y.t(), beta=1.0, alpha=-2.0)
    return dists.clamp(min=0.0)


def standardize_columns(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    var, mean = torch.var_mean(x, dim=0, correction=0, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps)


def batched_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return torch.matmul(q, k.transpose(-2, -1))


def to_patches(images: torch.Tensor, patch: int) -> torch.Tensor:
    h, w = images.shape[2:]
    rows = images.unflatten(2, (h // patch, patch)).unflatten(-1, (w // patch, patch))
    return rows.transpose(1, 2).transpose(2, 4).transpose(3, 4).flatten(3).flatten(1, 2)


def interleave_rows(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # Slicing with a step writes every other row: the even rows from a, the odd from b.
    out = a.new_empty((2 * a.shape[0], *a.shape[1:]))
    out[0::2] = a
    out[1::2] = b
    return out
