"""Wrong: checks the running statistics' number of elements, not their shape, so a (C, 1)
running_mean passes and is viewed as (C,)."""

from solutions.q46_norm_layers import batch_norm as _reference
from solutions.q46_norm_layers import layer_norm

__all__ = ["batch_norm", "layer_norm"]


def batch_norm(
    x, running_mean, running_var, weight=None, bias=None, training=True, momentum=0.1, eps=1e-5
):
    if x.dim() < 2:
        raise ValueError(f"x must be (N, C, ...), got shape {tuple(x.shape)}")
    channels = x.shape[1]
    if running_mean.numel() != channels or running_var.numel() != channels:
        raise ValueError(f"running statistics must have {channels} elements")
    mean, var = running_mean.view(channels), running_var.view(channels)
    return _reference(x, mean, var, weight, bias, training, momentum, eps)
