"""Kata 39: batches, epochs, iterations and optimizer steps, counted exactly.

Three words that are easy to mix up:
- batch size: how many samples go through one forward/backward pass;
- iteration: one batch, so an epoch has `len(loader)` iterations;
- epoch: one full pass over the dataset.
With gradient accumulation a fourth count appears: the optimizer steps only every few
batches, so there are fewer optimizer steps than iterations. Schedulers, logging and
checkpoints are usually set in optimizer steps, so these counts must be exact, including
the short last batch (`drop_last=False`) or its absence (`drop_last=True`).

Task: compute the counts with integer arithmetic, so that they agree with
`len(DataLoader(...))` for every dataset size and batch size.
Rules: no Python loops and no DataLoader; use integer arithmetic (`//`, `%`), not float
division: the answers must be exact for any size (floats are not beyond 2**53, int64
tensors and NumPy integers not beyond 2**63, decimal.Decimal not beyond its
context's precision, 28 digits unless raised).
The rules cover every branch, and every argument is checked whatever the others are (also
with nothing to count). Arguments are Python ints; other types (floats, bools) are outside
the contract.

Rule for the whole kata: torch's public API only. Private torch names (`torch._C`,
`torch.ops`, `torch._foreach_norm` and the like) and names looked up from strings
(`getattr(torch, name)`, `importlib`) are refused anywhere in the module: they reach
the code the rules forbid unseen.
"""


def steps_per_epoch(num_samples: int, batch_size: int, drop_last: bool = False) -> int:
    """The number of batches in one epoch: `len(DataLoader(dataset, batch_size, drop_last=...))`
    for a dataset of `num_samples` samples.

    - drop_last=False: a last, shorter batch holds the remainder (if any).
    - drop_last=True: the remainder is dropped.
    Returns a Python int. Raises ValueError if num_samples < 0 or batch_size < 1.

    >>> steps_per_epoch(10, 4), steps_per_epoch(10, 4, drop_last=True), steps_per_epoch(3, 4)
    (3, 2, 1)
    """
    # TODO: integer division, rounding up unless drop_last.
    raise NotImplementedError


def optimizer_steps(
    num_samples: int,
    batch_size: int,
    epochs: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    """The number of `optimizer.step()` calls in a run of `epochs` epochs with accumulation.

    Within each epoch the loop accumulates gradients over `accumulation_steps` batches and
    then steps; if the epoch's batches do not divide evenly, it steps once more after the
    epoch's last batch (gradients are never carried into the next epoch):

        for epoch in range(epochs):
            for i, batch in enumerate(loader):
                (loss_fn(model(x), y) / accumulation_steps).backward()
                if (i + 1) % accumulation_steps == 0 or i + 1 == len(loader):
                    optimizer.step(); optimizer.zero_grad()

    Returns a Python int. Raises ValueError if num_samples < 0, batch_size < 1, epochs < 0
    or accumulation_steps < 1.

    >>> optimizer_steps(10, 2, epochs=3, accumulation_steps=2)  # 5 batches -> 3 steps/epoch
    9
    """
    # TODO: optimizer steps in one epoch, times the number of epochs.
    raise NotImplementedError


def epoch_of_step(
    step: int,
    num_samples: int,
    batch_size: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    """The epoch (0-based) in which optimizer step number `step` (0-based, counted over the
    whole run) happens, with the loop of `optimizer_steps`.

    Returns a Python int. Raises ValueError if step < 0, for the arguments
    `optimizer_steps` rejects, or if an epoch has no optimizer step at all (no batches),
    since then no step ever happens.

    >>> epoch_of_step(2, 10, 2, accumulation_steps=2), epoch_of_step(3, 10, 2, accumulation_steps=2)
    (0, 1)
    """
    # TODO: divide by the number of optimizer steps per epoch.
    raise NotImplementedError
