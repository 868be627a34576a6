"""Wrong: always counts the short last batch, even with drop_last=True."""

from solutions.q39_steps_per_epoch import (  # the rest as in the reference
    epoch_of_step,
    optimizer_steps,
)


def steps_per_epoch(num_samples, batch_size, drop_last=False):
    if num_samples < 0 or batch_size < 1:
        raise ValueError("bad sizes")
    return (num_samples + batch_size - 1) // batch_size
