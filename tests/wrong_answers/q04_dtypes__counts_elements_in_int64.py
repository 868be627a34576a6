"""Wrong: counts elements with np.prod, in int64, which wraps beyond 2**63 elements."""

import numpy as np

from solutions.q04_dtypes import safe_mean, time_bucket  # the rest as in the reference


def nbytes(shape, dtype):
    return int(np.prod(shape)) * dtype.itemsize
