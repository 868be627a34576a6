"""Wrong: drop_last defaults to True, so a short last batch is not counted unless asked."""

from solutions.q39_steps_per_epoch import (
    epoch_of_step as _epoch_of_step,
    optimizer_steps as _optimizer_steps,
    steps_per_epoch as _steps_per_epoch,
)


def steps_per_epoch(num_samples, batch_size, drop_last=True):
    return _steps_per_epoch(num_samples, batch_size, drop_last)


def optimizer_steps(num_samples, batch_size, epochs, accumulation_steps=1, drop_last=True):
    return _optimizer_steps(num_samples, batch_size, epochs, accumulation_steps, drop_last)


def epoch_of_step(step, num_samples, batch_size, accumulation_steps=1, drop_last=True):
    return _epoch_of_step(step, num_samples, batch_size, accumulation_steps, drop_last)
