"""Wrong: epoch_of_step checks step, batch size and accumulation but not num_samples."""

from solutions.q39_steps_per_epoch import (  # the rest as in the reference
    _ceil_div,
    optimizer_steps,
    steps_per_epoch,
)


def epoch_of_step(
    step: int,
    num_samples: int,
    batch_size: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    if batch_size < 1 or accumulation_steps < 1:
        raise ValueError("need batch_size >= 1 and accumulation_steps >= 1")
    batches = num_samples // batch_size if drop_last else _ceil_div(num_samples, batch_size)
    per_epoch = _ceil_div(batches, accumulation_steps)
    if step < 0:
        raise ValueError(f"step must be >= 0, got {step}")
    if per_epoch == 0:
        raise ValueError("an epoch has no batches, so no optimizer step ever happens")
    return step // per_epoch
