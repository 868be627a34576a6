"""Wrong: with drop_last=True it returns num_samples // batch_size before checking the
arguments, so negative sizes are counted instead of refused."""

from solutions.q39_steps_per_epoch import _ceil_div, _check, epoch_of_step, optimizer_steps


def steps_per_epoch(num_samples, batch_size, drop_last=False):
    if drop_last:
        return num_samples // batch_size
    _check(num_samples, batch_size)
    return _ceil_div(num_samples, batch_size)
