"""Wrong: computes the variance as E[x²] - E[x]², which loses it to round-off when the
inputs sit far from zero."""

import torch


def batch_norm(
    x, running_mean, running_var, weight=None, bias=None, training=True, momentum=0.1, eps=1e-5
):
    channels = x.shape[1]
    if running_mean.shape != (channels,) or running_var.shape != (channels,):
        raise ValueError("running statistics must have shape (C,)")
    dims = [0, *range(2, x.dim())]
    shape = (1, channels) + (1,) * (x.dim() - 2)
    if training:
        n = x.numel() // channels
        if n < 2:
            raise ValueError("more than one value per channel needed")
        mean = x.mean(dim=dims)
        var = (x * x).mean(dim=dims) - mean * mean
        with torch.no_grad():
            running_mean.mul_(1 - momentum).add_(momentum * mean)
            running_var.mul_(1 - momentum).add_(momentum * var * n / (n - 1))
    else:
        mean, var = running_mean, running_var
    y = (x - mean.reshape(shape)) / torch.sqrt(var.reshape(shape) + eps)
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape or tuple(x.shape[-len(shape) :]) != shape:
        raise ValueError("x's trailing dimensions must equal normalized_shape")
    dims = tuple(range(-len(shape), 0))
    mean = x.mean(dim=dims, keepdim=True)
    var = (x * x).mean(dim=dims, keepdim=True) - mean * mean
    y = (x - mean) / torch.sqrt(var + eps)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y
