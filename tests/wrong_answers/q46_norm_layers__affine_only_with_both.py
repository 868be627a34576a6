"""Wrong: applies weight and bias only when both are given, so a weight without a bias
(nn.LayerNorm(bias=False)) is ignored."""

import torch

from solutions.q46_norm_layers import batch_norm


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape or x.dim() < len(shape) or tuple(x.shape[-len(shape) :]) != shape:
        raise ValueError(f"x's trailing dimensions {tuple(x.shape)} must equal {shape}")
    dims = tuple(range(-len(shape), 0))
    centred = x - x.mean(dim=dims, keepdim=True)
    var = centred.square().mean(dim=dims, keepdim=True)
    y = centred * torch.rsqrt(var + eps)
    if weight is not None and bias is not None:
        y = y * weight + bias
    return y
