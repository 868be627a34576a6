"""Correct: math.floor per dimension, matmul with mT, h_n viewed per layer, an additive mask."""

import math

import torch
import torch.nn.functional as F
from torch import nn


def conv2d_output_shape(input_shape, out_channels, kernel_size, stride=1, padding=0, dilation=1):
    if len(input_shape) not in (3, 4):
        raise ValueError("input_shape must have 3 or 4 entries")

    def two(v):
        return (int(v[0]), int(v[1])) if isinstance(v, (tuple, list)) else (int(v), int(v))

    ks, ss, ds = two(kernel_size), two(stride), two(dilation)
    if isinstance(padding, str):
        if padding == "valid":
            ps = (0, 0)
        elif padding == "same":
            if ss != (1, 1):
                raise ValueError("padding='same' needs stride 1")
            ps = None
        else:
            raise ValueError(f"unknown padding {padding!r}")
    else:
        ps = two(padding)
    sizes = [int(v) for v in input_shape]
    out = []
    for i, size in enumerate(sizes[-2:]):
        if ps is None:
            out.append(size)
            continue
        reach = ds[i] * (ks[i] - 1) + 1
        if reach > size + 2 * ps[i]:
            raise ValueError("kernel larger than the padded input")
        out.append(math.floor((size + 2 * ps[i] - reach) / ss[i]) + 1)
    return (*sizes[:-3], int(out_channels), out[0], out[1])


def linear_forward(x, weight, bias=None):
    if weight.ndim != 2:
        raise ValueError("weight must be 2-D")
    if x.ndim == 0 or x.shape[-1] != weight.shape[1]:
        raise ValueError("x's last dim must be in_features")
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise ValueError("bias must be [out_features]")
    y = torch.matmul(x, weight.mT)
    return y if bias is None else y + bias


def lstm_final_states(lstm: nn.LSTM, x: torch.Tensor) -> torch.Tensor:
    _, (h_n, _) = lstm(x)
    dirs = 2 if lstm.bidirectional else 1
    last = h_n.view(lstm.num_layers, dirs, h_n.shape[1], h_n.shape[2])[-1]
    return last.permute(1, 0, 2).reshape(h_n.shape[1], dirs * h_n.shape[2])


def padded_attention(q, k, v, key_padding_mask=None, causal=False):
    bias = torch.zeros(q.shape[-2], k.shape[-2], dtype=q.dtype, device=q.device)
    if causal:
        bias = bias.masked_fill(torch.ones_like(bias, dtype=torch.bool).triu(1), float("-inf"))
    if key_padding_mask is not None:
        bias = bias.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
    return F.scaled_dot_product_attention(q, k, v, attn_mask=bias)


def pool2d(x: torch.Tensor, kernel: int, mode: str = "max") -> torch.Tensor:
    pool = {"max": torch.amax, "avg": torch.mean}.get(mode)
    if pool is None:
        raise ValueError(f"unknown pooling mode {mode!r}")
    rows, cols = math.floor(x.shape[2] / kernel), math.floor(x.shape[3] / kernel)
    cropped = x.narrow(2, 0, rows * kernel).narrow(3, 0, cols * kernel)
    return pool(cropped.unflatten(3, (cols, kernel)).unflatten(2, (rows, kernel)), dim=(3, 5))
