"""Wrong: a loader without its own generator: order and worker seeds follow the global RNG."""

from torch.utils.data import DataLoader

from solutions.q41_reproducibility import (  # the rest as in the reference
    make_deterministic,
    seed_everything,
    seed_worker,
)


def make_loader(dataset, batch_size, seed, num_workers=0):
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        num_workers=num_workers,
        worker_init_fn=seed_worker,
    )
