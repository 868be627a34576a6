"""Wrong: safe_mean sums in the input dtype and divides, so a float16 sum overflows to inf."""

from solutions.q04_dtypes import nbytes, time_bucket

__all__ = ["nbytes", "safe_mean", "time_bucket"]


def safe_mean(x, dim=None):
    if dim is None:
        return x.sum() / x.numel()
    return x.sum(dim) / x.shape[dim]
