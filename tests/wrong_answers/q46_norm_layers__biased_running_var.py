"""Wrong: stores the biased batch variance (divide by n) in running_var instead of the
unbiased one (divide by n - 1)."""

import torch

from solutions.q46_norm_layers import layer_norm  # the rest as in the reference


def batch_norm(
    x, running_mean, running_var, weight=None, bias=None, training=True, momentum=0.1, eps=1e-5
):
    channels = x.shape[1]
    if running_mean.shape != (channels,) or running_var.shape != (channels,):
        raise ValueError("running statistics must have shape (C,)")
    dims = [0, *range(2, x.dim())]
    shape = (1, channels) + (1,) * (x.dim() - 2)
    if training:
        if x.numel() // channels < 2:
            raise ValueError("more than one value per channel needed")
        var, mean = torch.var_mean(x, dim=dims, correction=0)
        with torch.no_grad():
            running_mean.mul_(1 - momentum).add_(momentum * mean)
            running_var.mul_(1 - momentum).add_(momentum * var)
    else:
        mean, var = running_mean, running_var
    y = (x - mean.reshape(shape)) / torch.sqrt(var.reshape(shape) + eps)
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y
