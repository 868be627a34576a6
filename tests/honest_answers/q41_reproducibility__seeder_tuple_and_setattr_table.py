"""Seeder functions called in turn; cuDNN's flags set with setattr from a literal dict."""

import os
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

_NUMPY_SEED_LIMIT = 2**32
_CUBLAS = "CUBLAS_WORKSPACE_CONFIG"
_DETERMINISTIC_CUBLAS = frozenset({":4096:8", ":16:8"})


def _seed_python_and_numpy(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)


def seed_everything(seed: int) -> None:
    # torch.manual_seed seeds the CPU generator and every CUDA device's.
    for seeder in (_seed_python_and_numpy, torch.manual_seed):
        seeder(seed)


def seed_worker(worker_id: int) -> None:
    del worker_id  # the recipe does not need it
    _seed_python_and_numpy(torch.initial_seed() % _NUMPY_SEED_LIMIT)


def make_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    generator = torch.Generator()
    generator.manual_seed(seed)
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        num_workers=num_workers,
        worker_init_fn=seed_worker,
        generator=generator,
    )


def make_deterministic(enabled: bool = True) -> None:
    torch.use_deterministic_algorithms(enabled)
    for flag, value in {"deterministic": enabled, "benchmark": not enabled}.items():
        setattr(torch.backends.cudnn, flag, value)
    if enabled and os.environ.get(_CUBLAS) not in _DETERMINISTIC_CUBLAS:
        os.environ[_CUBLAS] = ":4096:8"
