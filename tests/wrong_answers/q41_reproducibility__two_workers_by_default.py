"""Wrong: num_workers defaults to 2 instead of 0, so a plain call starts worker processes."""

from solutions.q41_reproducibility import make_loader as _make_loader, seed_everything, seed_worker  # noqa: F401  # isort: skip  # the rest as in the reference


def make_loader(dataset, batch_size, seed, num_workers=2):
    return _make_loader(dataset, batch_size, seed, num_workers)
