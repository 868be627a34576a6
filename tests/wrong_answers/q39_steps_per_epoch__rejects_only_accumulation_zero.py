"""Wrong: rejects accumulation_steps == 0 only, so a negative accumulation count gives a
negative number of optimizer steps."""

from solutions.q39_steps_per_epoch import _ceil_div, steps_per_epoch

__all__ = ["epoch_of_step", "optimizer_steps", "steps_per_epoch"]


def optimizer_steps(num_samples, batch_size, epochs, accumulation_steps=1, drop_last=False):
    if accumulation_steps == 0:
        raise ValueError("accumulation_steps must not be 0")
    if epochs < 0:
        raise ValueError(f"epochs must be >= 0, got {epochs}")
    return epochs * _ceil_div(
        steps_per_epoch(num_samples, batch_size, drop_last), accumulation_steps
    )


def epoch_of_step(step, num_samples, batch_size, accumulation_steps=1, drop_last=False):
    per_epoch = optimizer_steps(num_samples, batch_size, 1, accumulation_steps, drop_last)
    if step < 0:
        raise ValueError(f"step must be >= 0, got {step}")
    if per_epoch == 0:
        raise ValueError("an epoch has no batches, so no optimizer step ever happens")
    return step // per_epoch
