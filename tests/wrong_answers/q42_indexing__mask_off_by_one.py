"""Wrong: builds the mask with <=, so one padding step per sequence counts as valid."""

import torch

from solutions.q42_indexing import batch_histogram, last_valid, rotate_pairs  # noqa: F401  # the rest as in the reference


def valid_steps(x, lengths):
    mask = torch.arange(x.shape[1], device=x.device) <= lengths[:, None]
    return x[mask]
