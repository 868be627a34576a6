"""Wrong: maps a per-pair distance over both sets with torch.vmap, building [N, M, D] after all."""

import torch

from solutions.q03_vectorised_ops import batched_scores, standardize_columns


def squared_distance(a, b):
    return ((a - b) ** 2).sum()


def pairwise_sq_dists(x, y):
    against_every_y = torch.vmap(squared_distance, in_dims=(None, 0))
    return torch.vmap(against_every_y, in_dims=(0, None))(x, y)
