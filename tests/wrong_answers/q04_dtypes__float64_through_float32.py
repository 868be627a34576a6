"""Wrong: safe_mean averages every dtype in float32, so float64 keeps its dtype but loses
its precision."""

from solutions.q04_dtypes import nbytes, time_bucket  # the rest as in the reference


def safe_mean(x, dim=None):
    acc = x.float()
    mean = acc.mean() if dim is None else acc.mean(dim)
    return mean.to(x.dtype)
