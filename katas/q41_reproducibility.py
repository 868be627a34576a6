"""Kata 41: reproducible runs, data-loading workers included.

`torch.manual_seed(s)` fixes torch's random numbers (on the CPU and every GPU), but a
training run draws from more generators than that: Python's `random` and NumPy, often in
data augmentation. A DataLoader with workers adds processes: each worker gets its own torch
seed, `base_seed + worker_id`, where `base_seed` is drawn from the loader's `generator`
(or from the global generator when it has none). The usual recipe, from PyTorch's notes on
randomness in data loading: a `worker_init_fn` that seeds Python and NumPy inside each
worker from `torch.initial_seed()`, and a seeded `torch.Generator` for the loader. Then
the shuffle order and every number the workers draw repeat exactly from run to run.

Seeds fix the numbers drawn, not the arithmetic: some GPU kernels (atomic adds in a
scatter or a backward pass, cuDNN's convolution algorithms picked by benchmarking) give
results that differ in the last bits from run to run. `torch.use_deterministic_algorithms`
makes torch use deterministic kernels or raise where it has none; cuDNN has flags of its own,
and cuBLAS needs an environment variable. They cost speed, so they are a choice for a run
that must repeat exactly (a debugging session, a published result), not a default.

Task: `seed_everything`, the `seed_worker` worker_init_fn, a loader that uses both, and
`make_deterministic`, the switch for deterministic kernels.
"""

from torch.utils.data import DataLoader, Dataset


def seed_everything(seed: int) -> None:
    """Seed Python's `random`, NumPy's global generator and torch (CPU and all CUDA devices),
    each with `seed` itself: afterwards each is where `random.seed(seed)`,
    `np.random.seed(seed)` and `torch.manual_seed(seed)` leave it.

    - seed: an int in [0, 2**32) (NumPy's limit); other seeds are outside the contract.
    - Afterwards `random.random()`, `np.random.rand()`, `torch.rand(...)` on any device
      give the same numbers every time `seed_everything` is called with the same seed.
    - Seeding only: no global setting changes, environment variables included (the cuDNN
      and determinism flags, and the `CUBLAS_WORKSPACE_CONFIG` variable, are
      `make_deterministic`'s choice).

    >>> seed_everything(0); a = (random.random(), np.random.rand(), torch.rand(1).item())
    >>> seed_everything(0); b = (random.random(), np.random.rand(), torch.rand(1).item())
    >>> a == b
    True
    """
    # TODO: seed random, numpy and torch.
    raise NotImplementedError


def seed_worker(worker_id: int) -> None:
    """A DataLoader `worker_init_fn`: seed Python and NumPy from this worker's torch seed.

    - Inside a worker, `torch.initial_seed()` is the worker's own torch seed (a 64-bit
      number). Seed `random` and NumPy's global generator with
      `torch.initial_seed() % 2**32` (NumPy takes 32-bit seeds only).
    - Do not change torch's own random state: the DataLoader has seeded it already, and the
      worker may have drawn from it (reseeding with the same seed restarts the stream).
    - worker_id is the worker's number (unused by the recipe, but part of the signature).

    >>> _ = torch.manual_seed(2**40 + 5)  # as if inside a worker
    >>> seed_worker(0)
    >>> random.random() == random.Random((2**40 + 5) % 2**32).random()
    True
    """
    # TODO: derive a 32-bit seed from torch.initial_seed() and seed random and numpy.
    raise NotImplementedError


def make_loader(dataset: Dataset, batch_size: int, seed: int, num_workers: int = 0) -> DataLoader:
    """A shuffling DataLoader whose results depend on `seed`, not on the global state.

    - shuffle=True (a new order at every epoch), `batch_size`, `num_workers` workers,
      `seed_worker` as worker_init_fn, and a `torch.Generator` of its own seeded with `seed`
      (one per loader: loaders are not tied to each other). The batches are what counts:
      a sampler or BatchSampler of your own that draws from that generator does as well
      (then `loader.batch_size` is None, which is not asked about).
    - What counts is what happens inside each worker, checked there: torch keeps the seed
      the DataLoader gave the worker (`get_worker_info().seed`, from the loader's
      generator), and `random` and NumPy are seeded with that seed % 2**32. Passing
      seed_worker does exactly that; a worker_init_fn that reseeds torch (say with
      seed + worker_id) does not. Workers started by spawn or forkserver get the
      worker_init_fn pickled: pass the function itself, not a lambda around it.
    - Two loaders built with the same seed yield the same shuffle order, and, with
      num_workers > 0, the same random numbers drawn inside the workers by torch, `random`
      and NumPy, bit for bit, whatever the global random states are. Another seed gives
      another order and other numbers. Building and iterating the loader does not use or
      change torch's global random state.

    >>> [batch.tolist() for batch in make_loader(list(range(6)), 3, seed=1)]  # doctest: +SKIP
    [[0, 4, 5], [1, 2, 3]]
    """
    # TODO: pass shuffle, generator and worker_init_fn to the DataLoader.
    raise NotImplementedError


def make_deterministic(enabled: bool = True) -> None:
    """Ask torch, cuDNN and cuBLAS for deterministic kernels (or give them back their speed).

    - enabled=True: `torch.use_deterministic_algorithms(True)` (an error, not a warning, where
      an op has no deterministic kernel: warn_only stays False), which switches the kernels
      torch.compile generates too (`torch.set_deterministic_debug_mode` switches eager
      kernels only, and leaves compiled code as it was: not the same call);
      `torch.backends.cudnn.deterministic = True` and `torch.backends.cudnn.benchmark = False`
      (benchmarking picks the fastest convolution algorithm on each run, which may differ
      between runs); and the environment variable `CUBLAS_WORKSPACE_CONFIG` set to ":4096:8"
      unless it already holds ":4096:8" or ":16:8" (cuBLAS reads it for deterministic
      matrix products on CUDA 10.2 and later).
    - enabled=False: deterministic algorithms off (`torch.use_deterministic_algorithms(False)`,
      compiled kernels included), cudnn.deterministic False,
      cudnn.benchmark True (the fast choice for fixed input shapes); the environment is left
      as it is.
    - These are global settings: they hold for the whole process until changed again. All
      of them can be set on a machine without a GPU (they take effect where a GPU is used).
      Nothing else changes: `cudnn.enabled` stays as it is, and no random state is touched
      (seeding is `seed_everything`'s job).

    >>> make_deterministic()
    >>> torch.are_deterministic_algorithms_enabled(), torch.backends.cudnn.benchmark
    (True, False)
    """
    # TODO: set torch's deterministic algorithms, the two cuDNN flags and the cuBLAS variable.
    raise NotImplementedError
