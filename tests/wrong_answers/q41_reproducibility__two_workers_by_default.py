"""Wrong: num_workers defaults to 2 instead of 0, so a plain call starts worker processes."""

from solutions.q41_reproducibility import (  # the rest as in the reference
    make_deterministic,
    make_loader as _make_loader,
    seed_everything,
    seed_worker,
)


def make_loader(dataset, batch_size, seed, num_workers=2):
    return _make_loader(dataset, batch_size, seed, num_workers)
