"""Wrong: computes layer norm in float32 and returns that, whatever x's dtype."""

from solutions.q46_norm_layers import batch_norm
from solutions.q46_norm_layers import layer_norm as _reference

__all__ = ["batch_norm", "layer_norm"]


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    weight = None if weight is None else weight.float()
    bias = None if bias is None else bias.float()
    return _reference(x.float(), normalized_shape, weight, bias, eps)
