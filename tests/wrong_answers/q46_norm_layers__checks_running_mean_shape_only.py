"""Wrong: batch_norm checks the shape of running_mean but not of running_var."""

from solutions.q46_norm_layers import (  # the rest as in the reference
    batch_norm as _batch_norm,
    layer_norm,
)


def batch_norm(
    x, running_mean, running_var, weight=None, bias=None, training=True, momentum=0.1, eps=1e-5
):
    if x.dim() >= 2 and running_mean.shape == (x.shape[1],) and running_var.shape[0] != x.shape[1]:
        fitted = running_var[: x.shape[1]]  # a longer running_var goes unnoticed
        return _batch_norm(x, running_mean, fitted, weight, bias, training, momentum, eps)
    return _batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps)
