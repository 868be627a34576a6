"""Wrong: replaces eps=0 by 1e-5 "to be safe", so standardize_columns(x, eps=0.0) still adds
1e-5 to every variance."""

from solutions.q03_vectorised_ops import batched_scores, pairwise_sq_dists


def standardize_columns(x, eps=1e-5):
    eps = eps or 1e-5
    mean = x.mean(dim=0, keepdim=True)
    var = x.var(dim=0, correction=0, keepdim=True)
    return (x - mean) / (var + eps).sqrt()
