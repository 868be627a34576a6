"""The formula over zipped per-axis settings; weight on the left of x's column vectors;
windows by unflatten and max(...).values; h_n unflattened by layer; boolean masks from ~ and
torch.triu."""

from collections.abc import Sequence

import torch
from torch import nn
from torch.nn import functional as F


def _pair(value: object) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


def conv2d_output_shape(
    input_shape: Sequence[int],
    out_channels: int,
    kernel_size: int | tuple[int, int],
    stride: int | tuple[int, int] = 1,
    padding: int | tuple[int, int] | str = 0,
    dilation: int | tuple[int, int] = 1,
) -> tuple[int, ...]:
    if len(input_shape) not in (3, 4):
        raise ValueError(f"input_shape needs 3 or 4 entries, got {tuple(input_shape)}")
    strides = _pair(stride)
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ValueError(f"padding string must be 'valid' or 'same', got {padding!r}")
        if padding == "same" and strides != (1, 1):
            raise ValueError("padding='same' is only supported with stride 1")
    *lead, height, width = (int(n) for n in input_shape)
    spatial = []
    for size, k, s, d, p in zip(
        (height, width), _pair(kernel_size), strides, _pair(dilation), _pair(padding), strict=True
    ):
        span = d * (k - 1)  # the dilated kernel covers span + 1 positions
        total_pad = {"valid": 0, "same": span}[p] if isinstance(p, str) else 2 * p
        if span + 1 > size + total_pad:
            raise ValueError(f"the dilated kernel ({span + 1}) exceeds the padded input")
        spatial.append(size if p == "same" else (size + total_pad - span - 1) // s + 1)
    return (*lead[:-1], out_channels, *spatial)


def linear_forward(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    if weight.ndim != 2:
        raise ValueError(f"weight must be 2-D, got {weight.ndim}-D")
    if x.ndim == 0 or x.size(-1) != weight.size(1):
        raise ValueError(f"x's last dim must be {weight.size(1)}, got shape {tuple(x.shape)}")
    if bias is not None and tuple(bias.shape) != (weight.size(0),):
        raise ValueError(f"bias must be [{weight.size(0)}], got {tuple(bias.shape)}")
    # W [out, in] times x as column vectors [..., in, 1]: [..., out, 1]
    y = torch.matmul(weight, x.unsqueeze(-1)).squeeze(-1)
    return y if bias is None else y + bias


def pool2d(x: torch.Tensor, kernel: int, mode: str = "max") -> torch.Tensor:
    if mode not in {"max", "avg"}:
        raise ValueError(f"unknown mode {mode!r}: 'max' or 'avg'")
    rows, cols = x.shape[-2] // kernel, x.shape[-1] // kernel
    cropped = x[..., : rows * kernel, : cols * kernel]
    # [N, C, rows, k, cols, k] -> [N, C, rows, cols, k * k]
    windows = (
        cropped.unflatten(-1, (cols, kernel))
        .unflatten(-3, (rows, kernel))
        .transpose(-3, -2)
        .flatten(-2)
    )
    return windows.max(dim=-1).values if mode == "max" else windows.mean(dim=-1)


def lstm_final_states(lstm: nn.LSTM, x: torch.Tensor) -> torch.Tensor:
    _, (h_n, _) = lstm(x)
    last_layer = h_n.unflatten(0, (lstm.num_layers, -1))[-1]  # [directions, B, H]
    return torch.cat(tuple(last_layer), dim=-1)


def padded_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    key_padding_mask: torch.Tensor | None = None,
    causal: bool = False,
) -> torch.Tensor:
    allowed = None
    if key_padding_mask is not None:
        allowed = ~key_padding_mask.view(key_padding_mask.shape[0], 1, 1, -1)
    if causal:
        future = torch.triu(
            torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool, device=q.device), diagonal=1
        )
        allowed = ~future if allowed is None else allowed & ~future
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
