"""Wrong: takes x[:, -1], the last padded step, instead of the last valid one."""

from solutions.q42_indexing import (  # the rest as in the reference
    batch_histogram,
    rotate_pairs,
    valid_steps,
)


def last_valid(x, lengths):
    return x[:, -1]
