"""Norms through linalg, transpose(-2, -1) for the batched products, statistics by hand."""

import torch


def pairwise_sq_dists(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x_norms = torch.linalg.vector_norm(x, dim=1).square().unsqueeze(1)
    y_norms = torch.linalg.vector_norm(y, dim=1).square().unsqueeze(0)
    return torch.clamp(x_norms + y_norms - 2.0 * torch.matmul(x, y.t()), min=0.0)


def standardize_columns(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    centred = x - x.mean(0)
    variance = (centred * centred).mean(0)
    return centred * torch.rsqrt(variance + eps)


def batched_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return torch.matmul(q, k.transpose(-2, -1))


def to_patches(images: torch.Tensor, patch: int) -> torch.Tensor:
    n, c, h, w = images.shape
    rows, cols = h // patch, w // patch
    grid = images.view(n, c, rows, patch, cols, patch).movedim((2, 4), (1, 2))
    return grid.reshape(n, rows * cols, -1)


def interleave_rows(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.stack([a, b], dim=1).flatten(end_dim=1)
