"""Wrong: accepts padding strings in any case ("Same"), which nn.Conv2d rejects."""

from solutions.q11_layer_shapes import (  # the rest as in the reference
    _pair,
    linear_forward,
    lstm_final_states,
    padded_attention,
)


def conv2d_output_shape(input_shape, out_channels, kernel_size, stride=1, padding=0, dilation=1):
    if isinstance(padding, str):
        padding = padding.strip().lower()
    if len(input_shape) not in (3, 4):
        raise ValueError("expected (N, C, H, W) or (C, H, W)")
    *leading, _, height, width = (int(size) for size in input_shape)
    kernel, stride, dilation = _pair(kernel_size), _pair(stride), _pair(dilation)
    if padding == "same":
        if stride != (1, 1):
            raise ValueError("padding='same' needs stride 1")
        return (*leading, out_channels, height, width)
    if padding == "valid":
        padding = 0
    elif isinstance(padding, str):
        raise ValueError(f"padding must be an int, a pair, 'valid' or 'same', got {padding!r}")
    spatial = []
    for size, k, s, p, d in zip(
        (height, width), kernel, stride, _pair(padding), dilation, strict=True
    ):
        span = d * (k - 1) + 1
        if span > size + 2 * p:
            raise ValueError("dilated kernel is larger than the padded input")
        spatial.append((size + 2 * p - span) // s + 1)
    return (*leading, out_channels, *spatial)
