"""Wrong: hands the work to F.batch_norm and F.layer_norm, which the kata forbids."""

import torch.nn.functional as F


def batch_norm(
    x, running_mean, running_var, weight=None, bias=None, training=True, momentum=0.1, eps=1e-5
):
    if running_mean.shape != (x.shape[1],) or running_var.shape != (x.shape[1],):
        raise ValueError("running statistics must have shape (C,)")
    return F.batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps)


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape or tuple(x.shape[-len(shape) :]) != shape:
        raise ValueError("x's trailing dimensions must equal normalized_shape")
    return F.layer_norm(x, shape, weight, bias, eps)
