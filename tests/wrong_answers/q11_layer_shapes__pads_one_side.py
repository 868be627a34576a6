"""Wrong: adds the padding once, as if only one side of the input were padded."""

from solutions.q11_layer_shapes import (  # the rest as in the reference
    _pair,
    linear_forward,
    lstm_final_states,
    padded_attention,
)


def conv2d_output_shape(input_shape, out_channels, kernel_size, stride=1, padding=0, dilation=1):
    if len(input_shape) not in (3, 4):
        raise ValueError("expected (N, C, H, W) or (C, H, W)")
    *leading, _, height, width = input_shape
    if padding == "same":
        if _pair(stride) != (1, 1):
            raise ValueError("padding='same' needs stride 1")
        return (*leading, out_channels, height, width)
    if padding == "valid":
        padding = 0
    elif isinstance(padding, str):
        raise ValueError("bad padding")
    spatial = []
    pairs = zip(
        (height, width),
        _pair(kernel_size),
        _pair(stride),
        _pair(padding),
        _pair(dilation),
        strict=True,
    )
    for size, k, s, p, d in pairs:
        span = d * (k - 1) + 1
        if span > size + p:
            raise ValueError("kernel larger than padded input")
        spatial.append((size + p - span) // s + 1)
    return (*leading, out_channels, *spatial)
