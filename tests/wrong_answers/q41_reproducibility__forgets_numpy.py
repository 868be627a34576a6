"""Wrong: seed_everything seeds Python's random and torch, but not NumPy."""

import random

import torch

from solutions.q41_reproducibility import make_loader, seed_worker  # the rest as in the reference


def seed_everything(seed):
    random.seed(seed)
    torch.manual_seed(seed)
