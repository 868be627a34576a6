"""Wrong: accumulates in float32 but forgets to convert the mean back to the input dtype."""

from solutions.q04_dtypes import nbytes, time_bucket  # the rest as in the reference


def safe_mean(x, dim=None):
    acc = x.float() if x.element_size() < 4 else x
    return acc.mean() if dim is None else acc.mean(dim)
