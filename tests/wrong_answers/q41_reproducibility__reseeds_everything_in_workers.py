"""Wrong: its worker_init_fn calls seed_everything(seed + worker_id), which reseeds torch in
each worker instead of keeping the seed the DataLoader drew for it."""

import torch
from torch.utils.data import DataLoader

from solutions.q41_reproducibility import make_deterministic, seed_everything, seed_worker


def make_loader(dataset, batch_size, seed, num_workers=0):
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        num_workers=num_workers,
        worker_init_fn=lambda worker_id: seed_everything(seed + worker_id),
        generator=torch.Generator().manual_seed(seed),
    )
