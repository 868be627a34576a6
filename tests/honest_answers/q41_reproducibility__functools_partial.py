"""A seeded numpy Generator's seed through np.random.seed, the loader built with a partial."""

import functools
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def seed_everything(seed: int) -> None:
    for seeder in (random.seed, np.random.seed, torch.manual_seed):
        seeder(seed)


def seed_worker(worker_id: int) -> None:
    base = torch.initial_seed() % (1 << 32)
    np.random.seed(base)
    random.seed(base)


def make_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    generator = torch.Generator()
    generator.manual_seed(seed)
    build = functools.partial(DataLoader, shuffle=True, worker_init_fn=seed_worker)
    return build(dataset, batch_size=batch_size, num_workers=num_workers, generator=generator)
