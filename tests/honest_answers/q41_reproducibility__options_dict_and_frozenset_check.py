"""DataLoader keyword arguments gathered in a dict, the generator seeded by the chained
torch.Generator().manual_seed(seed), the worker seed cut to 32 bits by a shift-defined modulus,
the cuBLAS variable checked against a frozenset of accepted values."""

import os
import random
from typing import Any

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

_CUBLAS_OK = frozenset({":4096:8", ":16:8"})


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # seeds every CUDA device too


def seed_worker(worker_id: int) -> None:
    del worker_id  # part of the worker_init_fn signature only
    worker_seed = torch.initial_seed() % (1 << 32)
    random.seed(worker_seed)
    np.random.seed(worker_seed)


def make_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    options: dict[str, Any] = {
        "batch_size": batch_size,
        "shuffle": True,
        "num_workers": num_workers,
        "worker_init_fn": seed_worker,
        "generator": torch.Generator().manual_seed(seed),
    }
    return DataLoader(dataset, **options)


def make_deterministic(enabled: bool = True) -> None:
    torch.use_deterministic_algorithms(enabled)
    torch.backends.cudnn.deterministic = enabled
    torch.backends.cudnn.benchmark = not enabled
    if enabled and os.environ.get("CUBLAS_WORKSPACE_CONFIG") not in _CUBLAS_OK:
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
