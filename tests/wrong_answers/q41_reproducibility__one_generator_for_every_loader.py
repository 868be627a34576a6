"""Wrong: reseeds one module-level generator for every loader, so two loaders read side by
side draw from each other's stream."""

import torch
from torch.utils.data import DataLoader

from solutions.q41_reproducibility import make_deterministic, seed_everything, seed_worker

_GENERATOR = torch.Generator()


def make_loader(dataset, batch_size, seed, num_workers=0):
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        num_workers=num_workers,
        worker_init_fn=seed_worker,
        generator=_GENERATOR.manual_seed(seed),
    )
