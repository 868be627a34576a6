"""Wrong: batch_norm refuses to train on two values per channel (n <= 2 instead of n < 2)."""

from solutions.q46_norm_layers import (  # the rest as in the reference
    batch_norm as _batch_norm,
    layer_norm,
)


def batch_norm(
    x, running_mean, running_var, weight=None, bias=None, training=True, momentum=0.1, eps=1e-5
):
    if training and x.dim() >= 2 and x.numel() // max(x.shape[1], 1) <= 2:
        raise ValueError("batch norm needs more than two values per channel when training")
    return _batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps)
