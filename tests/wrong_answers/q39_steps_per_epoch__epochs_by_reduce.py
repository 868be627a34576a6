"""Wrong: adds one epoch's steps at a time with functools.reduce, a loop over the epochs."""

import functools

from solutions.q39_steps_per_epoch import epoch_of_step, steps_per_epoch


def optimizer_steps(num_samples, batch_size, epochs, accumulation_steps=1, drop_last=False):
    if accumulation_steps < 1:
        raise ValueError("accumulation_steps must be >= 1")
    if epochs < 0:
        raise ValueError("epochs must be >= 0")
    batches = steps_per_epoch(num_samples, batch_size, drop_last)
    per_epoch = -(-batches // accumulation_steps)
    return functools.reduce(lambda total, _: total + per_epoch, range(epochs), 0)
