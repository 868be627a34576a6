"""Wrong: checks the bias with len(bias), its first dim only, so an [out_features, 1] bias
is accepted and broadcasts along the wrong dim."""

from solutions.q11_layer_shapes import (  # the rest as in the reference
    conv2d_output_shape,
    lstm_final_states,
    padded_attention,
)


def linear_forward(x, weight, bias=None):
    if weight.dim() != 2 or x.shape[-1:] != weight.shape[1:]:
        raise ValueError("weight must be [out, in] with in == x.shape[-1]")
    if bias is not None and len(bias) != weight.shape[0]:
        raise ValueError(f"bias must have {weight.shape[0]} entries, got {len(bias)}")
    y = x @ weight.T
    return y if bias is None else y + bias
