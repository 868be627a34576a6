"""Wrong: finds the epoch with a float quotient, int(step / per_epoch), off beyond 2**53."""

from solutions.q39_steps_per_epoch import (  # the rest as in the reference
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
    per_epoch = optimizer_steps(num_samples, batch_size, 1, accumulation_steps, drop_last)
    if step < 0:
        raise ValueError(f"step must be >= 0, got {step}")
    if per_epoch == 0:
        raise ValueError("an epoch has no batches, so no optimizer step ever happens")
    return int(step / per_epoch)
