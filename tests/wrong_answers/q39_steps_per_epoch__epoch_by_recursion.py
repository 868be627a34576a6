"""Wrong: finds the epoch by recursion, one call per epoch before the step's: a loop."""

from solutions.q39_steps_per_epoch import optimizer_steps, steps_per_epoch


def epoch_of_step(step, num_samples, batch_size, accumulation_steps=1, drop_last=False):
    per_epoch = optimizer_steps(num_samples, batch_size, 1, accumulation_steps, drop_last)
    if step < 0:
        raise ValueError(f"step must be >= 0, got {step}")
    if per_epoch == 0:
        raise ValueError("an epoch has no batches, so no optimizer step ever happens")
    if step < per_epoch:
        return 0
    rest = step - per_epoch
    return 1 + epoch_of_step(rest, num_samples, batch_size, accumulation_steps, drop_last)
