"""Kata 41: reproducible runs, data-loading workers included (reference answer)."""

import os
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
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


def make_deterministic(enabled: bool = True) -> None:
    # Raise, not warn, where an op has no deterministic kernel: a silent fallback would let
    # a run that must repeat exactly drift.
    torch.use_deterministic_algorithms(enabled)
    torch.backends.cudnn.deterministic = enabled
    # Benchmarking times several convolution algorithms and keeps the fastest, which can
    # differ from run to run: off for determinism, on for speed.
    torch.backends.cudnn.benchmark = not enabled
    if enabled and os.environ.get("CUBLAS_WORKSPACE_CONFIG") not in (":4096:8", ":16:8"):
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
