"""Correct: counts with the out-of-place torch.scatter_add, scatter_add_'s twin."""

import torch

from solutions.q42_indexing import (  # the rest as in the reference
    last_valid,
    rotate_pairs,
    valid_steps,
)


def batch_histogram(labels, num_bins):
    zeros = torch.zeros(labels.shape[0], num_bins, dtype=torch.int64, device=labels.device)
    return torch.scatter_add(zeros, 1, labels, torch.ones_like(labels))
