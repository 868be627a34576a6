"""Per-axis NamedTuple for the conv formula, mm on a 2-D view with in-place bias, as_strided
pooling windows, h_n's last layer transposed and flattened, a boolean SDPA mask built by logic."""

from collections.abc import Sequence
from typing import NamedTuple

import torch
from torch import nn
from torch.nn import functional as F


class _Axis(NamedTuple):
    size: int
    kernel: int
    stride: int
    padding: int | str
    dilation: int

    def output(self) -> int:
        reach = self.dilation * (self.kernel - 1) + 1  # the dilated kernel's extent
        if self.padding == "same":
            padded, out = self.size + reach - 1, self.size
        else:
            pad = 0 if self.padding == "valid" else int(self.padding)
            padded = self.size + 2 * pad
            out = (padded - reach) // self.stride + 1
        if reach > padded:
            raise ValueError(f"kernel reaches {reach} past the padded input of {padded}")
        return out


def _pair(value: int | tuple[int, int] | str) -> tuple:
    return (value, value) if isinstance(value, (int, str)) else tuple(value)


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
        raise ValueError(f"input_shape must be (N, C, H, W) or (C, H, W), got {shape}")
    if isinstance(padding, str) and padding not in ("valid", "same"):
        raise ValueError(f"padding must be 'valid', 'same' or ints, got {padding!r}")
    if padding == "same" and _pair(stride) != (1, 1):
        raise ValueError(f"padding='same' needs stride 1, got {stride}")
    axes = map(
        _Axis, shape[-2:], _pair(kernel_size), _pair(stride), _pair(padding), _pair(dilation)
    )
    return (*shape[:-3], out_channels, *(axis.output() for axis in axes))


def linear_forward(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    if weight.dim() != 2:
        raise ValueError(f"weight must be [out_features, in_features], got {tuple(weight.shape)}")
    out_features, in_features = weight.shape
    if x.dim() == 0 or x.shape[-1] != in_features:
        raise ValueError(f"x must end in {in_features} features, got {tuple(x.shape)}")
    if bias is not None and bias.shape != (out_features,):
        raise ValueError(f"bias must have shape ({out_features},), got {tuple(bias.shape)}")
    y = torch.mm(x.reshape(-1, in_features), weight.t())  # every leading dim as rows
    if bias is not None:
        y.add_(bias)  # mm's result is ours; mm does not save it for backward
    return y.reshape(*x.shape[:-1], out_features)


def pool2d(x: torch.Tensor, kernel: int, mode: str = "max") -> torch.Tensor:
    if mode not in ("max", "avg"):
        raise ValueError(f"mode must be 'max' or 'avg', got {mode!r}")
    n, c, h, w = x.shape
    sn, sc, sh, sw = x.stride()
    # [N, C, H/k, W/k, k, k]: each window its own two dims, read from x's memory in place
    windows = x.as_strided(
        (n, c, h // kernel, w // kernel, kernel, kernel),
        (sn, sc, sh * kernel, sw * kernel, sh, sw),
        x.storage_offset(),
    )
    if mode == "max":
        return windows.amax(dim=(-2, -1))
    return windows.mean(dim=(-2, -1))


def lstm_final_states(lstm: nn.LSTM, x: torch.Tensor) -> torch.Tensor:
    directions = 2 if lstm.bidirectional else 1
    _output, (h_n, _c_n) = lstm(x)
    # h_n: [layers * directions, B, H]; the last `directions` rows are the last layer's
    return h_n[-directions:].transpose(0, 1).flatten(1)


def padded_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    key_padding_mask: torch.Tensor | None = None,
    causal: bool = False,
) -> torch.Tensor:
    if key_padding_mask is None:
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    takes_part = torch.logical_not(key_padding_mask)[:, None, None, :]  # [B, 1, 1, S]
    if causal:
        length, keys = q.shape[-2], k.shape[-2]
        seen = torch.ones(length, keys, dtype=torch.bool, device=q.device).tril()
        takes_part = torch.logical_and(takes_part, seen)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=takes_part)
