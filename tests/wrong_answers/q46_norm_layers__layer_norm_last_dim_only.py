"""Wrong: layer norm always normalises over the last dimension only, whatever
normalized_shape says."""

import torch

from solutions.q46_norm_layers import batch_norm  # the rest as in the reference


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape or tuple(x.shape[-len(shape) :]) != shape:
        raise ValueError("x's trailing dimensions must equal normalized_shape")
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    y = (x - mean) / torch.sqrt(var + eps)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y
