"""Wrong: divides the step by the batches per epoch, ignoring that accumulation makes fewer
optimizer steps per epoch."""

from solutions.q39_steps_per_epoch import (  # the rest as in the reference
    optimizer_steps,
    steps_per_epoch,
)


def epoch_of_step(step, num_samples, batch_size, accumulation_steps=1, drop_last=False):
    if step < 0 or accumulation_steps < 1:
        raise ValueError("bad step")
    batches = steps_per_epoch(num_samples, batch_size, drop_last)
    if batches == 0:
        raise ValueError("no batches")
    return step // batches
