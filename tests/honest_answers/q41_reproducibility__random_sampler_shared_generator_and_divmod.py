"""Seeds set by restoring the states of freshly seeded generators (random.Random(seed),
np.random.RandomState(seed)) and torch.random.manual_seed, a RandomSampler on the loader's own
generator (shared with the workers' base seed), the worker seed by divmod, warn_only=False written
out."""

import os
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, RandomSampler


def seed_everything(seed: int) -> None:
    random.setstate(random.Random(seed).getstate())
    np.random.set_state(np.random.RandomState(seed).get_state())
    torch.random.manual_seed(seed)


def seed_worker(worker_id: int) -> None:
    worker_seed = divmod(torch.initial_seed(), 2**32)[1]
    random.seed(worker_seed)
    np.random.seed(worker_seed)


def make_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    generator = torch.Generator().manual_seed(seed)
    sampler = RandomSampler(dataset, generator=generator)  # type: ignore[arg-type]
    return DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=sampler,
        num_workers=num_workers,
        worker_init_fn=seed_worker,
        generator=generator,
    )


def make_deterministic(enabled: bool = True) -> None:
    torch.use_deterministic_algorithms(enabled, warn_only=False)
    torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = enabled, not enabled
    if enabled and os.environ.get("CUBLAS_WORKSPACE_CONFIG") not in {":4096:8", ":16:8"}:
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
