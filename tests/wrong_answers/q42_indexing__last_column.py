"""Wrong: takes x[:, -1], the last padded step, instead of the last valid one."""

from solutions.q42_indexing import batch_histogram, rotate_pairs, valid_steps  # noqa: F401  # the rest as in the reference


def last_valid(x, lengths):
    return x[:, -1]
