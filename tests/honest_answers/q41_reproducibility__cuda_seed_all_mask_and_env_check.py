"""Explicit torch.cuda.manual_seed_all beside manual_seed, a masked 32-bit seed, and the
cuBLAS variable checked against the accepted values before it is written."""

import os
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

_NUMPY_SEED_MASK = 0xFFFF_FFFF
_CUBLAS_OK = (":4096:8", ":16:8")


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)  # lazy: queued until CUDA initialises, harmless without it


def seed_worker(worker_id: int) -> None:
    del worker_id  # part of the worker_init_fn signature only
    worker_seed = torch.initial_seed() & _NUMPY_SEED_MASK
    random.seed(worker_seed)
    np.random.seed(worker_seed)


def make_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    own = torch.Generator()
    own.manual_seed(seed)
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        num_workers=num_workers,
        worker_init_fn=seed_worker,
        generator=own,
    )


def make_deterministic(enabled: bool = True) -> None:
    torch.use_deterministic_algorithms(enabled, warn_only=False)
    torch.backends.cudnn.deterministic = enabled
    torch.backends.cudnn.benchmark = not enabled
    if enabled and os.environ.get("CUBLAS_WORKSPACE_CONFIG") not in _CUBLAS_OK:
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
