"""Wrong: indexes with x[:, 0::2] instead of x[..., 0::2], so it works only for 2-D inputs."""

import torch

from solutions.q42_indexing import (  # the rest as in the reference
    batch_histogram,
    last_valid,
    valid_steps,
)


def rotate_pairs(x):
    if x.shape[-1] % 2:
        raise ValueError("odd last dim")
    return torch.stack((-x[:, 1::2], x[:, 0::2]), dim=-1).flatten(-2)
