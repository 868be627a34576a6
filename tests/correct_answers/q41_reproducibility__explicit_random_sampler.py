"""Correct: the shuffle spelled out as a RandomSampler over the loader's own generator (what
shuffle=True builds), CUDA seeded by name, the cuBLAS setting kept unless it is not one of
the two deterministic ones."""

import os
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, RandomSampler

_DETERMINISTIC_CUBLAS = (":4096:8", ":16:8")


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)  # lazy: a no-op without CUDA


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


def make_loader(dataset, batch_size, seed, num_workers=0):
    generator = torch.Generator()
    generator.manual_seed(seed)
    return DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=RandomSampler(dataset, generator=generator),
        num_workers=num_workers,
        worker_init_fn=seed_worker,
        generator=generator,
    )


def make_deterministic(enabled=True):
    torch.use_deterministic_algorithms(enabled, warn_only=False)
    torch.backends.cudnn.deterministic = enabled
    torch.backends.cudnn.benchmark = not enabled
    if enabled and os.environ.get("CUBLAS_WORKSPACE_CONFIG") not in _DETERMINISTIC_CUBLAS:
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
