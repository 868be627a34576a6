"""Wrong: a lambda as worker_init_fn, which spawn and forkserver workers cannot unpickle."""

import torch
from torch.utils.data import DataLoader

from solutions.q41_reproducibility import make_deterministic, seed_everything, seed_worker  # rest


def make_loader(dataset, batch_size, seed, num_workers=0):
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        num_workers=num_workers,
        worker_init_fn=lambda worker_id: seed_worker(worker_id),
        generator=torch.Generator().manual_seed(seed),
    )
