"""Correct: torch.random.manual_seed with cuda.manual_seed_all, the worker seed cut to 32 bits
by a bit mask, the cuBLAS variable chosen through a lookup."""

import os
import random

import numpy
import torch
from torch.utils.data import DataLoader


def seed_everything(seed):
    random.seed(seed)
    numpy.random.seed(seed)
    torch.random.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() & 0xFFFFFFFF
    numpy.random.seed(worker_seed)
    random.seed(worker_seed)


def make_loader(dataset, batch_size, seed, num_workers=0):
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


def make_deterministic(enabled=True):
    torch.use_deterministic_algorithms(mode=bool(enabled), warn_only=False)
    torch.backends.cudnn.deterministic = bool(enabled)
    torch.backends.cudnn.benchmark = not enabled
    if enabled:
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = {":16:8": ":16:8"}.get(
            os.environ.get("CUBLAS_WORKSPACE_CONFIG", ""), ":4096:8"
        )
