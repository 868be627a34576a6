"""cudnn imported by name, the seed's low bits by divmod, a generator made inline, and the
enable and disable paths written as two branches."""

import os
import random

import numpy
import torch
from torch.backends import cudnn
from torch.utils.data import DataLoader, Dataset


def seed_everything(seed: int) -> None:
    for seeder in (random.seed, numpy.random.seed, torch.manual_seed):
        seeder(seed)


def seed_worker(worker_id: int) -> None:
    _, low = divmod(torch.initial_seed(), 2**32)
    random.seed(low)
    numpy.random.seed(low)


def make_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    return DataLoader(
        dataset,
        batch_size,
        shuffle=True,
        num_workers=num_workers,
        worker_init_fn=seed_worker,
        generator=torch.Generator().manual_seed(seed),
    )


def make_deterministic(enabled: bool = True) -> None:
    if enabled:
        torch.use_deterministic_algorithms(True)
        cudnn.deterministic = True
        cudnn.benchmark = False
        current = os.environ.get("CUBLAS_WORKSPACE_CONFIG", "")
        if current != ":4096:8" and current != ":16:8":
            os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
    else:
        torch.use_deterministic_algorithms(False)
        cudnn.deterministic = False
        cudnn.benchmark = True
