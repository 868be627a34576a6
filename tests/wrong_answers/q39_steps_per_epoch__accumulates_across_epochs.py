"""Wrong: spreads the accumulation over the whole run, as if leftover batches carried into
the next epoch, instead of stepping once more at the end of every epoch."""

from solutions.q39_steps_per_epoch import (  # the rest as in the reference
    epoch_of_step,
    steps_per_epoch,
)


def optimizer_steps(num_samples, batch_size, epochs, accumulation_steps=1, drop_last=False):
    if epochs < 0 or accumulation_steps < 1:
        raise ValueError("bad counts")
    batches = steps_per_epoch(num_samples, batch_size, drop_last)
    return -(-epochs * batches // accumulation_steps)
