"""A DataLoader subclass that owns its seeded generator, a seeder tuple applied with a for loop,
divmod for the 32-bit worker seed, cudnn imported from torch.backends with its flags set by
tuple assignment, os.environ.update."""

import os
import random
from collections.abc import Callable

import numpy as np
import torch
from torch.backends import cudnn
from torch.utils.data import DataLoader, Dataset

_SEEDERS: tuple[Callable[[int], object], ...] = (random.seed, np.random.seed, torch.manual_seed)


def seed_everything(seed: int) -> None:
    for seeder in _SEEDERS:
        seeder(seed)


def seed_worker(worker_id: int) -> None:
    _, low_bits = divmod(torch.initial_seed(), 1 << 32)
    for seeder in _SEEDERS[:2]:  # Python and NumPy only: torch is already seeded
        seeder(low_bits)


class _SeededLoader(DataLoader):
    """A shuffling loader with a torch.Generator of its own, seeded once when built."""

    def __init__(self, dataset: Dataset, batch_size: int, seed: int, num_workers: int) -> None:
        generator = torch.Generator()
        generator.manual_seed(seed)
        super().__init__(
            dataset,
            batch_size=batch_size,
            shuffle=True,
            num_workers=num_workers,
            worker_init_fn=seed_worker,
            generator=generator,
        )


def make_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    return _SeededLoader(dataset, batch_size, seed, num_workers)


def make_deterministic(enabled: bool = True) -> None:
    torch.use_deterministic_algorithms(enabled)
    cudnn.deterministic, cudnn.benchmark = enabled, not enabled
    if enabled and os.environ.get("CUBLAS_WORKSPACE_CONFIG", "") not in {":4096:8", ":16:8"}:
        os.environ.update(CUBLAS_WORKSPACE_CONFIG=":4096:8")
