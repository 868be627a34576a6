"""Wrong: rounds a float quotient of batches by accumulation_steps, which is off beyond 2**53."""

import math

from solutions.q39_steps_per_epoch import _check, steps_per_epoch  # the rest as in the reference


def optimizer_steps(
    num_samples: int,
    batch_size: int,
    epochs: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    _check(num_samples, batch_size, accumulation_steps)
    if epochs < 0:
        raise ValueError(f"epochs must be >= 0, got {epochs}")
    batches = steps_per_epoch(num_samples, batch_size, drop_last)
    # Every full group of batches steps, and so does a leftover group at the epoch's end.
    return epochs * math.ceil(batches / accumulation_steps)


def epoch_of_step(
    step: int,
    num_samples: int,
    batch_size: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    per_epoch = optimizer_steps(num_samples, batch_size, 1, accumulation_steps, drop_last)
    if step < 0:
        raise ValueError(f"step must be >= 0, got {step}")
    if per_epoch == 0:
        raise ValueError("an epoch has no batches, so no optimizer step ever happens")
    return step // per_epoch
