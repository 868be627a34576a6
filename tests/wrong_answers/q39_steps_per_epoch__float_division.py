"""Wrong: rounds a float quotient (math.ceil(n / b)), which is off for sizes beyond 2**53."""

import math

from solutions.q39_steps_per_epoch import (  # the rest as in the reference
    epoch_of_step,
    optimizer_steps,
)


def steps_per_epoch(num_samples, batch_size, drop_last=False):
    if num_samples < 0 or batch_size < 1:
        raise ValueError("bad sizes")
    rounding = math.floor if drop_last else math.ceil
    return rounding(num_samples / batch_size)
