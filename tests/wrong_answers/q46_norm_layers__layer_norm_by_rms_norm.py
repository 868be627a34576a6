"""Wrong: centres x, then lets F.rms_norm normalise it: a builtin normalisation after all."""

import torch.nn.functional as F

from solutions.q46_norm_layers import batch_norm


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape or x.dim() < len(shape) or tuple(x.shape[-len(shape) :]) != shape:
        raise ValueError(f"x's trailing dimensions must equal normalized_shape {shape}")
    dims = tuple(range(-len(shape), 0))
    y = F.rms_norm(x - x.mean(dim=dims, keepdim=True), shape, weight, eps)
    return y if bias is None else y + bias
