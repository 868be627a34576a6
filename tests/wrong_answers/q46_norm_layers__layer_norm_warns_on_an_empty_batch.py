"""Wrong: layer_norm takes torch.var_mean as it is, which warns about degrees of freedom on
an empty batch."""

import torch

from solutions.q46_norm_layers import batch_norm  # the rest as in the reference


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape or x.dim() < len(shape) or tuple(x.shape[-len(shape) :]) != shape:
        raise ValueError(f"x's trailing dimensions must equal normalized_shape {shape}")
    dims = tuple(range(-len(shape), 0))
    var, mean = torch.var_mean(x, dim=dims, correction=0, keepdim=True)
    y = (x - mean) * torch.rsqrt(var + eps)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y
