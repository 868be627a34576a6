"""Correct: the conv size worked out dimension by dimension from normalised pairs, the Linear
as torch.tensordot over the feature dim, the LSTM's final states read from h_n viewed as
(layers, directions, B, H), attention with one boolean mask built by logical_and."""

import torch
import torch.nn.functional as F


def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def conv2d_output_shape(input_shape, out_channels, kernel_size, stride=1, padding=0, dilation=1):
    shape = tuple(int(size) for size in input_shape)
    if len(shape) not in (3, 4):
        raise ValueError(f"input_shape must be (N, C, H, W) or (C, H, W), got {shape}")
    strides, dilations, kernels = _pair(stride), _pair(dilation), _pair(kernel_size)
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ValueError(f"padding must be 'valid', 'same' or numbers, got {padding!r}")
        if padding == "same":
            if strides != (1, 1):
                raise ValueError("padding='same' needs stride 1")
            return (*shape[:-3], out_channels, *shape[-2:])
        paddings = (0, 0)
    else:
        paddings = _pair(padding)
    spatial = []
    for size, k, s, p, d in zip(shape[-2:], kernels, strides, paddings, dilations, strict=True):
        span = d * (k - 1) + 1
        if span > size + 2 * p:
            raise ValueError(f"a dilated kernel of {span} does not fit an input of {size + 2 * p}")
        spatial.append((size + 2 * p - span) // s + 1)
    return (*shape[:-3], out_channels, *spatial)


def linear_forward(x, weight, bias=None):
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D, got shape {tuple(weight.shape)}")
    out_features, in_features = weight.shape
    if x.dim() == 0 or x.shape[-1] != in_features:
        raise ValueError(f"x must end in {in_features} features, got shape {tuple(x.shape)}")
    if bias is not None and tuple(bias.shape) != (out_features,):
        raise ValueError(f"bias must have shape ({out_features},), got {tuple(bias.shape)}")
    y = torch.tensordot(x, weight, dims=([-1], [1]))
    return y if bias is None else y + bias


def lstm_final_states(lstm, x):
    _, (h_n, _) = lstm(x)
    directions = 2 if lstm.bidirectional else 1
    batch, size = h_n.shape[1], h_n.shape[2]
    last_layer = h_n.view(lstm.num_layers, directions, batch, size)[-1]
    return last_layer.transpose(0, 1).reshape(batch, directions * size)


def padded_attention(q, k, v, key_padding_mask=None, causal=False):
    keep = None
    if key_padding_mask is not None:
        keep = key_padding_mask.logical_not()[:, None, None, :]
    if causal:
        lower = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool, device=q.device).tril()
        keep = lower if keep is None else torch.logical_and(keep, lower)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)


def pool2d(x: torch.Tensor, kernel: int, mode: str = "max") -> torch.Tensor:
    if mode not in ("max", "avg"):
        raise ValueError(f"mode must be max or avg, not {mode!r}")
    k = kernel
    *lead, h, w = x.shape
    windows = x[..., : h - h % k, : w - w % k].reshape(*lead, h // k, k, w // k, k)
    if mode == "avg":
        # The mean of a window as a contraction with a uniform k x k kernel.
        uniform = x.new_full((k, k), 1.0 / (k * k))
        return torch.tensordot(windows.transpose(-3, -2), uniform, dims=([-2, -1], [0, 1]))
    return windows.amax(dim=(-3, -1))
