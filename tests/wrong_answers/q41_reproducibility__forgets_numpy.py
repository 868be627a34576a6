"""Wrong: seed_everything seeds Python's random and torch, but not NumPy."""

import random

import torch

from solutions.q41_reproducibility import (  # the rest as in the reference
    make_deterministic,
    make_loader,
    seed_worker,
)


def seed_everything(seed):
    random.seed(seed)
    torch.manual_seed(seed)
