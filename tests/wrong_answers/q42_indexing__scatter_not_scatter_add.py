"""Wrong: uses scatter_ (which overwrites) instead of scatter_add_ (which accumulates)."""

import torch

from solutions.q42_indexing import (  # the rest as in the reference
    last_valid,
    rotate_pairs,
    valid_steps,
)


def batch_histogram(labels, num_bins):
    counts = torch.zeros(labels.shape[0], num_bins, dtype=torch.int64, device=labels.device)
    return counts.scatter_(1, labels, torch.ones_like(labels))
