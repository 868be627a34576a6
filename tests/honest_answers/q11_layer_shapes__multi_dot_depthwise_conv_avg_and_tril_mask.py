"""Conv shapes from math.floor of a true division over zipped pairs; Linear through
torch.linalg.multi_dot; average pooling as a depthwise conv2d with a 1/k² kernel and max
pooling as two amax reductions; explicit zero initial states for the LSTM; the padding mask
expanded to [B, 1, L, S] and cut to its lower triangle with tril for causality."""

import math
from collections.abc import Sequence

import torch
from torch import nn
from torch.nn import functional as F


def _pair(value: int | tuple[int, int]) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else (int(value[0]), int(value[1]))


def conv2d_output_shape(
    input_shape: Sequence[int],
    out_channels: int,
    kernel_size: int | tuple[int, int],
    stride: int | tuple[int, int] = 1,
    padding: int | tuple[int, int] | str = 0,
    dilation: int | tuple[int, int] = 1,
) -> tuple[int, ...]:
    """nn.Conv2d's output shape from the formula."""
    if len(input_shape) not in (3, 4):
        raise ValueError(f"input_shape needs 3 or 4 entries, got {len(input_shape)}")
    *batch, _, height, width = (int(n) for n in input_shape)
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ValueError(f"unknown padding {padding!r}")
        if padding == "same":
            if _pair(stride) != (1, 1):
                raise ValueError('padding="same" works with stride 1 only')
            return (*batch, int(out_channels), height, width)
        padding = 0
    sizes = []
    for size, k, s, p, d in zip(
        (height, width),
        _pair(kernel_size),
        _pair(stride),
        _pair(padding),
        _pair(dilation),
        strict=True,
    ):
        if d * (k - 1) + 1 > size + 2 * p:
            raise ValueError("the dilated kernel does not fit in the padded input")
        sizes.append(math.floor((size + 2 * p - d * (k - 1) - 1) / s) + 1)
    return (*batch, int(out_channels), *sizes)


def linear_forward(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    """x W^T + b with torch.linalg.multi_dot on a 2-D (or 1-D) x."""
    if weight.ndim != 2:
        raise ValueError("weight must be 2-D")
    out_features, in_features = weight.shape
    if x.ndim == 0 or x.shape[-1] != in_features:
        raise ValueError("x's last dimension must be in_features")
    if bias is not None and tuple(bias.shape) != (out_features,):
        raise ValueError("bias must have shape [out_features]")
    if x.ndim <= 2:
        y = torch.linalg.multi_dot([x, weight.T])
    else:
        lead = x.shape[:-1]
        y = torch.linalg.multi_dot([x.reshape(lead.numel(), in_features), weight.T])
        y = y.reshape(*lead, out_features)
    return y if bias is None else y + bias


def pool2d(x: torch.Tensor, kernel: int, mode: str = "max") -> torch.Tensor:
    """Max: amax over each window's columns, then its rows. Avg: a depthwise conv."""
    if mode not in {"max", "avg"}:
        raise ValueError(f"mode must be 'max' or 'avg', not {mode!r}")
    n, c, h, w = x.shape
    rows, cols = h // kernel, w // kernel
    if mode == "max":
        cropped = x[..., : rows * kernel, : cols * kernel]
        windows = cropped.reshape(n, c, rows, kernel, cols, kernel)
        return windows.amax(dim=5).amax(dim=3)
    weight = torch.full((1, 1, kernel, kernel), 1.0 / kernel**2, dtype=x.dtype, device=x.device)
    planes = x.reshape(n * c, 1, h, w)
    return F.conv2d(planes, weight, stride=kernel).reshape(n, c, rows, cols)


def lstm_final_states(lstm: nn.LSTM, x: torch.Tensor) -> torch.Tensor:
    """Run from explicit zero states; the last layer's slice of h_n."""
    directions = 2 if lstm.bidirectional else 1
    batch = x.shape[0] if lstm.batch_first else x.shape[1]
    out_size = lstm.proj_size or lstm.hidden_size
    layers = lstm.num_layers * directions
    h0 = torch.zeros(layers, batch, out_size, dtype=x.dtype, device=x.device)
    c0 = torch.zeros(layers, batch, lstm.hidden_size, dtype=x.dtype, device=x.device)
    _, (h_n, _) = lstm(x, (h0, c0))
    last = h_n[-directions:]  # [directions, B, H]
    return torch.cat(list(last.unbind(0)), dim=-1)


def padded_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    key_padding_mask: torch.Tensor | None = None,
    causal: bool = False,
) -> torch.Tensor:
    """SDPA; is_causal alone, or one boolean mask cut to its lower triangle."""
    if key_padding_mask is None:
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    batch, length = q.shape[0], q.shape[-2]
    keep = (~key_padding_mask)[:, None, None, :].expand(batch, 1, length, k.shape[-2])
    if causal:
        keep = keep.tril()
    return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
