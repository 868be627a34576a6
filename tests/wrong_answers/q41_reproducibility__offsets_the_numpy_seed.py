"""Wrong: seeds NumPy with seed + 1, which NumPy rejects for the largest allowed seed, 2**32 - 1."""

import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed + 1)  # "decorrelated" from Python's random
    torch.manual_seed(seed)  # seeds the CPU generator and every CUDA device's generator


def seed_worker(worker_id: int) -> None:
    # The DataLoader already seeded torch in this worker with base_seed + worker_id;
    # derive Python's and NumPy's seeds from it (NumPy wants 32 bits).
    worker_seed = torch.initial_seed() % 2**32
    random.seed(worker_seed)
    np.random.seed(worker_seed)


def make_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    # The generator decides the shuffle and the workers' base seed, so both follow `seed`.
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        num_workers=num_workers,
        worker_init_fn=seed_worker,
        generator=torch.Generator().manual_seed(seed),
    )
