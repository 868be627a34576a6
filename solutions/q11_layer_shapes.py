"""Kata 11: conv output shapes, a linear layer by hand, LSTM states, attention masks
(reference answer)."""

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn


def _pair(value: int | tuple[int, int]) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else tuple(value)


def conv2d_output_shape(
    input_shape: Sequence[int],
    out_channels: int,
    kernel_size: int | tuple[int, int],
    stride: int | tuple[int, int] = 1,
    padding: int | tuple[int, int] | str = 0,
    dilation: int | tuple[int, int] = 1,
) -> tuple[int, ...]:
    if len(input_shape) not in (3, 4):
        raise ValueError(f"expected (N, C, H, W) or (C, H, W), got {tuple(input_shape)}")
    *leading, _, height, width = (int(size) for size in input_shape)
    kernel, stride, dilation = _pair(kernel_size), _pair(stride), _pair(dilation)
    if padding == "same":
        if stride != (1, 1):
            raise ValueError("padding='same' needs stride 1")
        return (*leading, out_channels, height, width)  # "same" pads exactly enough for this
    if padding == "valid":
        padding = 0
    elif isinstance(padding, str):
        raise ValueError(f"padding must be an int, a pair, 'valid' or 'same', got {padding!r}")
    spatial = []
    for size, k, s, p, d in zip(
        (height, width), kernel, stride, _pair(padding), dilation, strict=True
    ):
        span = d * (k - 1) + 1  # the input extent one output element sees
        if span > size + 2 * p:
            raise ValueError(f"dilated kernel {span} is larger than padded input {size + 2 * p}")
        spatial.append((size + 2 * p - span) // s + 1)
    return (*leading, out_channels, *spatial)


def linear_forward(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    if weight.dim() != 2 or x.shape[-1:] != weight.shape[1:]:
        raise ValueError(
            f"x {tuple(x.shape)} and weight {tuple(weight.shape)} don't fit: "
            "weight must be [out, in] with in == x.shape[-1]"
        )
    if bias is not None and bias.shape != weight.shape[:1]:
        raise ValueError(f"bias must have shape {tuple(weight.shape[:1])}, got {bias.shape}")
    # matmul broadcasts over all leading dims of x; weight.T is a view, not a copy.
    y = x @ weight.T
    return y if bias is None else y + bias


def pool2d(x: torch.Tensor, kernel: int, mode: str = "max") -> torch.Tensor:
    if mode not in ("max", "avg"):
        raise ValueError(f"mode must be 'max' or 'avg', got {mode!r}")
    n, c, h, w = x.shape
    rows, cols = h // kernel, w // kernel
    # Drop the edge that fills no whole window, then give each window two dims of its own.
    windows = x[..., : rows * kernel, : cols * kernel].reshape(n, c, rows, kernel, cols, kernel)
    return windows.amax(dim=(3, 5)) if mode == "max" else windows.mean(dim=(3, 5))


def lstm_final_states(lstm: nn.LSTM, x: torch.Tensor) -> torch.Tensor:
    _, (h_n, _) = lstm(x)
    directions = 2 if lstm.bidirectional else 1
    # h_n is [layers * directions, B, H] whatever batch_first says; the last layer's
    # directions are its last rows, forward first.
    last = h_n[-directions:]
    return torch.cat(list(last), dim=-1)


def padded_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    key_padding_mask: torch.Tensor | None = None,
    causal: bool = False,
) -> torch.Tensor:
    keep = None
    if key_padding_mask is not None:
        # SDPA's boolean mask is True where a key takes part: the padding mask inverted,
        # shaped [B, 1, 1, S] to broadcast over heads and queries.
        keep = ~key_padding_mask[:, None, None, :]
    if causal:
        length = q.shape[-2]
        below = torch.ones(length, length, dtype=torch.bool, device=q.device).tril()
        # SDPA refuses is_causal together with a mask: fold causality into the mask.
        keep = below if keep is None else keep & below
    return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
