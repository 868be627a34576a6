"""Correct: the patches by unflatten and movedim; the rows interleaved by assigning a and b
to the even and odd rows of a new tensor."""

import torch

# the rest as in the reference
from solutions.q03_vectorised_ops import batched_scores, pairwise_sq_dists, standardize_columns

__all__ = [
    "batched_scores",
    "interleave_rows",
    "pairwise_sq_dists",
    "standardize_columns",
    "to_patches",
]


def to_patches(images: torch.Tensor, patch: int) -> torch.Tensor:
    n, c, h, w = images.shape
    rows, cols = h // patch, w // patch
    grid = images.unflatten(3, (cols, patch)).unflatten(2, (rows, patch))  # N C r p c p
    return grid.movedim((2, 4), (1, 2)).reshape(n, rows * cols, c * patch * patch)


def interleave_rows(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    out = a.new_empty((2 * a.shape[0], *a.shape[1:]))
    out[0::2] = a
    out[1::2] = b
    return out
