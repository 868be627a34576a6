"""Correct: counts with scatter_reduce(..., "sum"), a scatter-add by another name."""

import torch

from solutions.q42_indexing import (  # the rest as in the reference
    last_valid,
    rotate_pairs,
    valid_steps,
)


def batch_histogram(labels, num_bins):
    zeros = torch.zeros(labels.shape[0], num_bins, dtype=torch.int64, device=labels.device)
    return zeros.scatter_reduce(1, labels, torch.ones_like(labels), "sum")
