"""A _pair helper, tensordot, dict-dispatched reducers, h_n unbind+cat, additive mask."""

import math
import operator
from collections.abc import Callable, Sequence

import torch
from torch import nn
from torch.nn import functional as F


def _pair(value: int | Sequence[int]) -> tuple[int, int]:
    if isinstance(value, int):
        return value, value
    first, second = value
    return int(first), int(second)


def _out_size(size: int, k: int, s: int, p: int, d: int) -> int:
    span = d * (k - 1) + 1
    if span > size + 2 * p:
        raise ValueError(f"dilated kernel {span} exceeds padded input {size + 2 * p}")
    return (size + 2 * p - span) // s + 1


def conv2d_output_shape(
    input_shape: Sequence[int],
    out_channels: int,
    kernel_size: int | tuple[int, int],
    stride: int | tuple[int, int] = 1,
    padding: int | tuple[int, int] | str = 0,
    dilation: int | tuple[int, int] = 1,
) -> tuple[int, ...]:
    """Apply the size formula per spatial dim; "same" keeps H, W and "valid" pads 0."""
    dims = tuple(int(v) for v in input_shape)
    if len(dims) not in (3, 4):
        raise ValueError(f"input_shape must have 3 or 4 entries, got {dims}")
    lead, (h, w) = dims[:-3], dims[-2:]
    kernel, strides, dilations = _pair(kernel_size), _pair(stride), _pair(dilation)
    if isinstance(padding, str):
        if padding == "valid":
            pads = (0, 0)
        elif padding == "same":
            if strides != (1, 1):
                raise ValueError("padding='same' needs stride 1")
            return (*lead, out_channels, h, w)
        else:
            raise ValueError(f"unknown padding {padding!r}")
    else:
        pads = _pair(padding)
    sizes = tuple(map(_out_size, (h, w), kernel, strides, pads, dilations))
    return (*lead, out_channels, *sizes)


def linear_forward(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    """Contract x's last dim with weight's dim 1 via tensordot, then add the bias."""
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D, got {weight.dim()}-D")
    out_features, in_features = weight.shape
    if x.dim() == 0 or x.shape[-1] != in_features:
        raise ValueError(f"x's last dim must be {in_features}, got shape {tuple(x.shape)}")
    if bias is not None and bias.shape != (out_features,):
        raise ValueError(f"bias must have shape ({out_features},), got {tuple(bias.shape)}")
    y = torch.tensordot(x, weight, dims=([x.dim() - 1], [1]))
    return y if bias is None else y + bias


def _window_max(windows: torch.Tensor) -> torch.Tensor:
    return windows.amax(dim=-1)


def _window_mean(windows: torch.Tensor) -> torch.Tensor:
    acc = torch.promote_types(windows.dtype, torch.float32)
    return windows.to(acc).mean(dim=-1).to(windows.dtype)


_REDUCERS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "max": _window_max,
    "avg": _window_mean,
}


def pool2d(x: torch.Tensor, kernel: int, mode: str = "max") -> torch.Tensor:
    """Crop, give every window a trailing dimension of k*k values, reduce it."""
    reduce = _REDUCERS.get(mode)
    if reduce is None:
        raise ValueError(f"mode must be 'max' or 'avg', got {mode!r}")
    n, c, h, w = x.shape
    gh, gw = h // kernel, w // kernel
    cropped = x[:, :, : gh * kernel, : gw * kernel]
    windows = cropped.reshape(n, c, gh, kernel, gw, kernel).transpose(3, 4)
    return reduce(windows.reshape(n, c, gh, gw, kernel * kernel))


def lstm_final_states(lstm: nn.LSTM, x: torch.Tensor) -> torch.Tensor:
    """Unbind the last layer's directions out of h_n and concatenate them."""
    _, (h_n, _) = lstm(x)
    directions = 2 if lstm.bidirectional else 1
    return torch.cat(h_n[-directions:].unbind(0), dim=-1)


def padded_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    key_padding_mask: torch.Tensor | None = None,
    causal: bool = False,
) -> torch.Tensor:
    """Build a float mask, -inf where a key is hidden, 0 where it takes part."""
    if key_padding_mask is None and not causal:
        return F.scaled_dot_product_attention(q, k, v)
    length, source = q.shape[-2], k.shape[-2]
    hidden = torch.zeros(q.shape[0], 1, length, source, dtype=torch.bool, device=q.device)
    if key_padding_mask is not None:
        hidden = operator.or_(hidden, key_padding_mask[:, None, None, :])
    if causal:
        future = torch.ones(length, source, dtype=torch.bool, device=q.device).triu(diagonal=1)
        hidden = hidden | future
    additive = torch.zeros(hidden.shape, dtype=q.dtype, device=q.device).masked_fill(
        hidden, -math.inf
    )
    return F.scaled_dot_product_attention(q, k, v, attn_mask=additive)
