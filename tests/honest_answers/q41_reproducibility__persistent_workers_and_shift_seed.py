"""Worker seed reduced with shifts (s - (s >> 32 << 32)); the loader keeps its workers alive
between epochs (persistent_workers where there are workers); the flags set from a
(setting, value) table of the enabled and disabled choices."""

import os
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def seed_everything(seed: int) -> None:
    torch.random.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)


def seed_worker(worker_id: int) -> None:
    full = torch.initial_seed()
    seed32 = full - (full >> 32 << 32)
    np.random.seed(seed32)
    random.seed(seed32)


def make_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        num_workers=num_workers,
        worker_init_fn=seed_worker,
        generator=torch.Generator().manual_seed(seed),
        persistent_workers=num_workers > 0,
    )


def make_deterministic(enabled: bool = True) -> None:
    choice = {True: (True, True, False), False: (False, False, True)}[bool(enabled)]
    algorithms, deterministic, benchmark = choice
    torch.use_deterministic_algorithms(algorithms)
    torch.backends.cudnn.deterministic = deterministic
    torch.backends.cudnn.benchmark = benchmark
    if enabled:
        current = os.environ.get("CUBLAS_WORKSPACE_CONFIG", "")
        if current not in {":4096:8", ":16:8"}:
            os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
