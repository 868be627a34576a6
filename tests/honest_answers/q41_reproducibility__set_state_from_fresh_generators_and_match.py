"""States copied in from freshly seeded private generators (random.Random, np.random.RandomState)
with set_state; torch seeded through default_generator plus cuda.manual_seed_all; a kwargs dict
for the loader; a match statement for the flags."""

import os
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

_DETERMINISTIC_CUBLAS = (":4096:8", ":16:8")


def _seed_python_and_numpy(seed: int) -> None:
    # A fresh generator seeded with `seed` is in exactly the state the global one would reach
    # by seed(seed); copying its state in is the same as seeding the global one.
    random.setstate(random.Random(seed).getstate())
    np.random.set_state(np.random.RandomState(seed).get_state())


def seed_everything(seed: int) -> None:
    _seed_python_and_numpy(seed)
    torch.default_generator.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)  # queued until CUDA initialises; a no-op without CUDA


def seed_worker(worker_id: int) -> None:
    del worker_id  # the recipe derives everything from the worker's torch seed
    _seed_python_and_numpy(torch.initial_seed() & 0xFFFF_FFFF)


def make_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    options = {
        "batch_size": batch_size,
        "shuffle": True,
        "num_workers": num_workers,
        "worker_init_fn": seed_worker,
        "generator": torch.Generator().manual_seed(seed),
    }
    return DataLoader(dataset, **options)  # type: ignore[arg-type]


def make_deterministic(enabled: bool = True) -> None:
    match bool(enabled):
        case True:
            torch.use_deterministic_algorithms(True, warn_only=False)
            torch.backends.cudnn.deterministic = True
            torch.backends.cudnn.benchmark = False
            if os.environ.get("CUBLAS_WORKSPACE_CONFIG") not in _DETERMINISTIC_CUBLAS:
                os.environ["CUBLAS_WORKSPACE_CONFIG"] = _DETERMINISTIC_CUBLAS[0]
        case False:
            torch.use_deterministic_algorithms(False)
            torch.backends.cudnn.deterministic = False
            torch.backends.cudnn.benchmark = True
