"""Per-dimension settings zipped as pairs, matmul with a transposed weight, h_n viewed as
[layers, directions, B, H], and one combined boolean mask built with logical_and."""

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

_PADDING_WORDS = ("valid", "same")


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
    shape = tuple(int(n) for n in input_shape)
    if len(shape) not in (3, 4):
        raise ValueError(f"input_shape needs 3 or 4 entries, got {len(shape)}")
    kernels, strides, dilations = _pair(kernel_size), _pair(stride), _pair(dilation)
    if isinstance(padding, str):
        if padding not in _PADDING_WORDS:
            raise ValueError(f"padding must be one of {_PADDING_WORDS}, got {padding!r}")
        if padding == "same" and strides != (1, 1):
            raise ValueError("padding='same' needs stride 1")
    spatial = []
    for i, (size, k, s, d) in enumerate(zip(shape[-2:], kernels, strides, dilations)):
        reach = d * (k - 1) + 1  # the dilated kernel
        if padding == "same":
            padded = size + reach - 1  # total padding d (k - 1), split over both sides
        elif padding == "valid":
            padded = size
        else:
            padded = size + 2 * _pair(padding)[i]
        if reach > padded:
            raise ValueError(f"kernel of reach {reach} exceeds the padded input {padded}")
        spatial.append((padded - reach) // s + 1 if padding != "same" else size)
    return (*shape[:-3], out_channels, *spatial)


def linear_forward(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D, got {weight.dim()} dims")
    out_features, in_features = weight.shape
    if x.dim() == 0 or x.shape[-1] != in_features:
        raise ValueError(f"x's last dim must be {in_features}, got shape {tuple(x.shape)}")
    if bias is not None and tuple(bias.shape) != (out_features,):
        raise ValueError(f"bias must have shape ({out_features},), got {tuple(bias.shape)}")
    y = torch.matmul(x, weight.t())
    return y if bias is None else y + bias


def lstm_final_states(lstm: nn.LSTM, x: torch.Tensor) -> torch.Tensor:
    _, (h_n, _) = lstm(x)
    layers = lstm.num_layers
    directions = 2 if lstm.bidirectional else 1
    batch, hidden = h_n.shape[1], h_n.shape[2]
    last = h_n.view(layers, directions, batch, hidden)[-1]  # [directions, B, H]
    return last.permute(1, 0, 2).reshape(batch, directions * hidden)


def padded_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    key_padding_mask: torch.Tensor | None = None,
    causal: bool = False,
) -> torch.Tensor:
    takes_part = None
    if key_padding_mask is not None:
        takes_part = torch.logical_not(key_padding_mask)[:, None, None, :]  # [B, 1, 1, S]
    if causal:
        length, keys = q.shape[-2], k.shape[-2]
        lower = torch.ones(length, keys, dtype=torch.bool, device=q.device).tril()
        takes_part = lower if takes_part is None else torch.logical_and(takes_part, lower)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=takes_part)


def pool2d(x: torch.Tensor, kernel: int, mode: str = "max") -> torch.Tensor:
    if mode != "max" and mode != "avg":
        raise ValueError("mode is 'max' or 'avg'")
    n, c, h, w = x.shape
    k = kernel
    tiles = x[:, :, : h - h % k, : w - w % k].reshape(n, c, h // k, k, w // k, k)
    tiles = tiles.permute(0, 1, 2, 4, 3, 5).flatten(-2)  # [N, C, H/k, W/k, k*k]
    return tiles.amax(-1) if mode == "max" else tiles.mean(-1)
