"""Wrong: divides the step by the batches per epoch, ignoring that accumulation makes fewer
optimizer steps per epoch."""

from solutions.q39_steps_per_epoch import optimizer_steps, steps_per_epoch  # noqa: F401  # the rest as in the reference


def epoch_of_step(step, num_samples, batch_size, accumulation_steps=1, drop_last=False):
    if step < 0 or accumulation_steps < 1:
        raise ValueError("bad step")
    batches = steps_per_epoch(num_samples, batch_size, drop_last)
    if batches == 0:
        raise ValueError("no batches")
    return step // batches
