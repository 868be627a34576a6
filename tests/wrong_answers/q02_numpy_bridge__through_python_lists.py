"""Wrong: converts through t.tolist(), which copies and turns float32 into float64."""

import numpy as np

from solutions.q02_numpy_bridge import to_numpy_copy, to_tensor  # the rest as in the reference


def to_numpy(t):
    return np.array(t.tolist())
