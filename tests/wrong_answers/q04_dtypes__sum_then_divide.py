"""Wrong: safe_mean sums in the input dtype and divides, so a float16 sum overflows to inf."""

from solutions.q04_dtypes import nbytes, time_bucket  # the rest as in the reference


def safe_mean(x, dim=None):
    if dim is None:
        return x.sum() / x.numel()
    return x.sum(dim) / x.shape[dim]
