"""Correct: seeding written as data (a list of seeders), a generator built inline."""

import os
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

_SEEDERS = (random.seed, np.random.seed)


def seed_everything(seed: int) -> None:
    for seeder in _SEEDERS:
        seeder(seed)
    torch.random.manual_seed(seed)  # every CUDA device too
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def seed_worker(worker_id: int) -> None:
    del worker_id  # part of the worker_init_fn signature only
    seed32 = torch.initial_seed() & 0xFFFF_FFFF
    for seeder in _SEEDERS:
        seeder(seed32)


def make_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    gen = torch.Generator()
    gen.manual_seed(seed)
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        num_workers=num_workers,
        worker_init_fn=seed_worker,
        generator=gen,
    )


_CUBLAS_OK = {":4096:8", ":16:8"}


def make_deterministic(enabled: bool = True) -> None:
    torch.use_deterministic_algorithms(enabled, warn_only=False)
    torch.backends.cudnn.deterministic = enabled
    torch.backends.cudnn.benchmark = not enabled
    if enabled and os.environ.get("CUBLAS_WORKSPACE_CONFIG") not in _CUBLAS_OK:
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
