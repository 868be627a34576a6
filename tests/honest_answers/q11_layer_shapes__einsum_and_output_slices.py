"""Pairs normalised by a helper and a per-axis loop, einsum for the Linear, LSTM final states
read from the output sequence's ends, the SDPA mask folded from a list with functools.reduce."""

import functools
import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn


def _pair(value: int | tuple[int, int]) -> tuple[int, int]:
    if isinstance(value, tuple):
        return value
    return (value, value)


def conv2d_output_shape(
    input_shape: Sequence[int],
    out_channels: int,
    kernel_size: int | tuple[int, int],
    stride: int | tuple[int, int] = 1,
    padding: int | tuple[int, int] | str = 0,
    dilation: int | tuple[int, int] = 1,
) -> tuple[int, ...]:
    shape = [int(size) for size in input_shape]
    if len(shape) not in (3, 4):
        raise ValueError(f"input_shape must have 3 or 4 entries, got {len(shape)}")
    kernels, strides, dilations = _pair(kernel_size), _pair(stride), _pair(dilation)
    same = False
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ValueError(f"padding must be 'valid' or 'same', got {padding!r}")
        if padding == "same" and strides != (1, 1):
            raise ValueError("padding='same' needs stride 1")
        same = padding == "same"
        pads = (0, 0)
    else:
        pads = _pair(padding)

    spatial = []
    for size, k, s, p, d in zip(shape[-2:], kernels, strides, pads, dilations, strict=True):
        reach = d * (k - 1) + 1
        if same:
            # nn.Conv2d pads d (k - 1) in all, so the output keeps the input's size.
            spatial.append(size)
            continue
        if reach > size + 2 * p:
            raise ValueError(
                f"dilated kernel {reach} is larger than the padded input {size + 2 * p}"
            )
        spatial.append(math.floor((size + 2 * p - reach) / s) + 1)
    return (*shape[:-3], out_channels, *spatial)


def linear_forward(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D, got {weight.dim()}-D")
    out_features, in_features = weight.shape
    if x.dim() == 0 or x.shape[-1] != in_features:
        raise ValueError(f"x's last dim must be {in_features}, got shape {tuple(x.shape)}")
    if bias is not None and bias.shape != (out_features,):
        raise ValueError(f"bias must have shape ({out_features},), got {tuple(bias.shape)}")
    y = torch.einsum("...i,oi->...o", x, weight)
    return y if bias is None else y + bias


def lstm_final_states(lstm: nn.LSTM, x: torch.Tensor) -> torch.Tensor:
    output, _ = lstm(x)
    steps = output if lstm.batch_first else output.transpose(0, 1)  # [B, T, H * dirs]
    width = lstm.proj_size or lstm.hidden_size
    forward_last = steps[:, -1, :width]
    if not lstm.bidirectional:
        return forward_last
    # The backward direction finishes at step 0.
    return torch.cat([forward_last, steps[:, 0, width:]], dim=-1)


def padded_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    key_padding_mask: torch.Tensor | None = None,
    causal: bool = False,
) -> torch.Tensor:
    takes_part = []
    if key_padding_mask is not None:
        takes_part.append(key_padding_mask.logical_not()[:, None, None, :])
    if causal:
        length, source = q.shape[-2], k.shape[-2]
        takes_part.append(torch.ones(length, source, dtype=torch.bool, device=q.device).tril())
    mask = functools.reduce(torch.logical_and, takes_part) if takes_part else None
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def pool2d(x: torch.Tensor, kernel: int, mode: str = "max") -> torch.Tensor:
    reducers = {"max": torch.amax, "avg": torch.mean}
    if mode not in reducers:
        raise ValueError(f"unknown pooling mode {mode!r}")
    rows, cols = x.shape[-2] // kernel, x.shape[-1] // kernel
    cropped = x[..., : rows * kernel, : cols * kernel]
    windows = cropped.unflatten(-1, (cols, kernel)).unflatten(-3, (rows, kernel))
    return reducers[mode](windows, dim=(-3, -1))
