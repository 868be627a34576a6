"""Wrong: lets torch.histogramdd count the (row, label) pairs instead of scatter_add_."""

import torch

from solutions.q42_indexing import last_valid, rotate_pairs, valid_steps


def batch_histogram(labels, num_bins):
    rows, length = labels.shape
    if rows == 0 or length == 0:
        return torch.zeros(rows, num_bins, dtype=torch.int64, device=labels.device)
    row = torch.arange(rows, device=labels.device).repeat_interleave(length)
    pairs = torch.stack([row, labels.reshape(-1)], dim=1).cpu().double()
    counts, _ = torch.histogramdd(pairs, bins=[rows, num_bins], range=[0, rows, 0, num_bins])
    return counts.long().to(labels.device)
