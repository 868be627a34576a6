"""Wrong: seeds NumPy with seed + 1, which NumPy rejects for the largest allowed seed, 2**32 - 1."""

import random

import numpy as np
import torch

from solutions.q41_reproducibility import (  # the rest as in the reference
    make_deterministic,
    make_loader,
    seed_worker,
)


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed + 1)  # "decorrelated" from Python's random
    torch.manual_seed(seed)  # seeds the CPU generator and every CUDA device's generator
