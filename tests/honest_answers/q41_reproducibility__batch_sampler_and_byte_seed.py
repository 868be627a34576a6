"""Low 32 bits of the worker seed taken by a byte round trip (int.to_bytes, first four bytes);
the loader given an explicit BatchSampler over a RandomSampler with its own generator;
the cuBLAS variable written through os.environ.update."""

import os
import random

import numpy as np
import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler

_CUBLAS = "CUBLAS_WORKSPACE_CONFIG"
_CUBLAS_OK = (":4096:8", ":16:8")


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # the CPU generator and every CUDA device's


def seed_worker(worker_id: int) -> None:
    del worker_id  # the recipe seeds from the worker's torch seed alone
    low = torch.initial_seed().to_bytes(8, "little")[:4]
    worker_seed = int.from_bytes(low, "little")  # == torch.initial_seed() % 2**32
    random.seed(worker_seed)
    np.random.seed(worker_seed)


def make_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    generator = torch.Generator()
    generator.manual_seed(seed)
    sampler = RandomSampler(dataset, generator=generator)  # type: ignore[arg-type]
    return DataLoader(
        dataset,
        batch_sampler=BatchSampler(sampler, batch_size=batch_size, drop_last=False),
        num_workers=num_workers,
        worker_init_fn=seed_worker,
        generator=generator,  # base seeds of the workers come from the same generator
    )


def make_deterministic(enabled: bool = True) -> None:
    torch.use_deterministic_algorithms(enabled, warn_only=False)
    torch.backends.cudnn.deterministic = enabled
    torch.backends.cudnn.benchmark = not enabled
    if enabled and os.environ.get(_CUBLAS) not in _CUBLAS_OK:
        os.environ.update({_CUBLAS: ":4096:8"})
