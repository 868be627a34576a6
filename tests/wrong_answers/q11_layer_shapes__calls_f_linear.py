"""Wrong: hands the work to F.linear, which the kata forbids (the point is the matmul)."""

import torch.nn.functional as F

from solutions.q11_layer_shapes import (  # the rest as in the reference
    conv2d_output_shape,
    lstm_final_states,
    padded_attention,
)


def linear_forward(x, weight, bias=None):
    if weight.dim() != 2 or x.shape[-1] != weight.shape[1]:
        raise ValueError("x and weight don't fit")
    if bias is not None and bias.shape != weight.shape[:1]:
        raise ValueError("bias has the wrong shape")
    return F.linear(x, weight, bias)
