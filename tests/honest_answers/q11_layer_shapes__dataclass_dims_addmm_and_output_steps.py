"""Normalising arguments through a small dataclass and a match statement, Linear as addmm on
a flattened batch, pooling by moving each window into one trailing dimension, LSTM final states
read from `output` (not h_n), and one combined boolean mask built with logical_and."""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F


@dataclass(frozen=True)
class _Dim:
    size: int
    kernel: int
    stride: int
    padding: int
    dilation: int

    def out(self) -> int:
        span = self.dilation * (self.kernel - 1) + 1
        padded = self.size + 2 * self.padding
        if span > padded:
            raise ValueError(f"dilated kernel {span} is larger than the padded input {padded}")
        return (padded - span) // self.stride + 1


def _two(value: int | tuple[int, int]) -> tuple[int, int]:
    if isinstance(value, int):
        return value, value
    first, second = value
    return int(first), int(second)


def conv2d_output_shape(
    input_shape: Sequence[int],
    out_channels: int,
    kernel_size: int | tuple[int, int],
    stride: int | tuple[int, int] = 1,
    padding: int | tuple[int, int] | str = 0,
    dilation: int | tuple[int, int] = 1,
) -> tuple[int, ...]:
    """The shape nn.Conv2d gives for input_shape, without running it."""
    dims = [int(n) for n in input_shape]
    if len(dims) not in (3, 4):
        raise ValueError(f"input_shape must have 3 or 4 entries, got {len(dims)}")
    strides = _two(stride)
    match padding:
        case "valid":
            pads = (0, 0)
        case "same":
            if strides != (1, 1):
                raise ValueError('padding="same" needs stride 1')
            return (*dims[:-3], int(out_channels), dims[-2], dims[-1])
        case str():
            raise ValueError(f'padding must be "valid" or "same", got {padding!r}')
        case _:
            pads = _two(padding)
    kernels, dilations = _two(kernel_size), _two(dilation)
    spatial = tuple(
        _Dim(dims[-2 + i], kernels[i], strides[i], pads[i], dilations[i]).out() for i in range(2)
    )
    return (*dims[:-3], int(out_channels), *spatial)


def linear_forward(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    """y = x W^T + b through addmm on x flattened to two dimensions."""
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D, got {weight.dim()}-D")
    out_features, in_features = weight.shape
    if x.dim() == 0 or x.shape[-1] != in_features:
        raise ValueError(f"x's last dim must be {in_features}, got shape {tuple(x.shape)}")
    if bias is not None and bias.shape != (out_features,):
        raise ValueError(f"bias must have shape ({out_features},), got {tuple(bias.shape)}")
    lead = x.shape[:-1]
    flat = x.reshape(math.prod(lead), in_features)
    y = torch.mm(flat, weight.t()) if bias is None else torch.addmm(bias, flat, weight.t())
    return y.reshape(*lead, out_features)


def pool2d(x: torch.Tensor, kernel: int, mode: str = "max") -> torch.Tensor:
    """Max or mean pooling: each window's k*k values moved into one trailing dimension."""
    if mode not in ("max", "avg"):
        raise ValueError(f'mode must be "max" or "avg", got {mode!r}')
    n, c, h, w = x.shape
    rows, cols = h // kernel, w // kernel
    cropped = x[:, :, : rows * kernel, : cols * kernel]
    windows = (
        cropped.reshape(n, c, rows, kernel, cols, kernel)
        .permute(0, 1, 2, 4, 3, 5)
        .reshape(n, c, rows, cols, kernel * kernel)
    )
    if mode == "max":
        return windows.max(dim=-1).values
    return windows.mean(dim=-1)


def lstm_final_states(lstm: nn.LSTM, x: torch.Tensor) -> torch.Tensor:
    """Final states of the last layer, read from the per-step output."""
    output, _ = lstm(x)
    steps_dim = 1 if lstm.batch_first else 0
    last = output.select(steps_dim, -1)
    if not lstm.bidirectional:
        return last
    first = output.select(steps_dim, 0)
    half = output.shape[-1] // 2
    return torch.cat([last[:, :half], first[:, half:]], dim=-1)


def padded_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    key_padding_mask: torch.Tensor | None = None,
    causal: bool = False,
) -> torch.Tensor:
    """SDPA with one boolean "takes part" mask combined from padding and causality."""
    keep: torch.Tensor | None = None
    if key_padding_mask is not None:
        keep = key_padding_mask.logical_not()[:, None, None, :]
    if causal:
        length, source = q.shape[-2], k.shape[-2]
        tri = torch.ones(length, source, dtype=torch.bool, device=q.device).tril()
        keep = tri if keep is None else torch.logical_and(keep, tri)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
