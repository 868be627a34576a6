"""Wrong: seed_worker also calls torch.manual_seed(0): all workers draw the same torch numbers."""

import random

import numpy as np
import torch
from torch.utils.data import DataLoader

from solutions.q41_reproducibility import (  # the rest as in the reference
    make_deterministic,
    seed_everything,
)


def seed_worker(worker_id):
    seed = torch.initial_seed() % 2**32
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(0)


def make_loader(dataset, batch_size, seed, num_workers=0):
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        num_workers=num_workers,
        worker_init_fn=seed_worker,
        generator=torch.Generator().manual_seed(seed),
    )
