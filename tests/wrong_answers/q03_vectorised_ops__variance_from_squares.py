"""Wrong: variance as mean(x**2) - mean(x)**2, which cancels for large offsets, and in place."""

from solutions.q03_vectorised_ops import (  # the rest as in the reference
    batched_scores,
    pairwise_sq_dists,
)


def standardize_columns(x, eps=1e-5):
    mean = x.mean(0)
    var = (x * x).mean(0) - mean * mean
    x -= mean
    return x / (var + eps).sqrt()
