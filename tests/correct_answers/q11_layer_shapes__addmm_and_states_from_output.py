"""Correct: shapes of common layers, written with small helpers and addmm."""

from collections.abc import Sequence

import torch
from torch import nn
from torch.nn import functional as F


def _pair(value, name: str) -> tuple[int, int]:
    if isinstance(value, int):
        return value, value
    pair = tuple(value)
    if len(pair) != 2:
        raise ValueError(f"{name} must be an int or a pair, got {value!r}")
    return int(pair[0]), int(pair[1])


def conv2d_output_shape(
    input_shape: Sequence[int],
    out_channels: int,
    kernel_size: int | tuple[int, int],
    stride: int | tuple[int, int] = 1,
    padding: int | tuple[int, int] | str = 0,
    dilation: int | tuple[int, int] = 1,
) -> tuple[int, ...]:
    dims = tuple(int(s) for s in input_shape)
    if len(dims) not in (3, 4):
        raise ValueError(f"input_shape must have 3 or 4 entries, got {len(dims)}")
    lead, spatial = dims[:-3], dims[-2:]
    kernel, strides, dil = (
        _pair(kernel_size, "kernel_size"),
        _pair(stride, "stride"),
        _pair(dilation, "dilation"),
    )

    if isinstance(padding, str):
        if padding == "same":
            if strides != (1, 1):
                raise ValueError("padding='same' needs stride 1")
            return (*lead, out_channels, *spatial)
        if padding != "valid":
            raise ValueError(f"padding must be 'valid', 'same' or numbers, got {padding!r}")
        pads = (0, 0)
    else:
        pads = _pair(padding, "padding")

    out = []
    for size, k, s, p, d in zip(spatial, kernel, strides, pads, dil):
        span = d * (k - 1) + 1
        room = size + 2 * p
        if span > room:
            raise ValueError(f"dilated kernel {span} is larger than the padded input {room}")
        out.append((room - span) // s + 1)
    return (*lead, out_channels, *out)


def linear_forward(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D, got shape {tuple(weight.shape)}")
    n_out, n_in = weight.shape
    if x.dim() == 0 or x.shape[-1] != n_in:
        raise ValueError(f"x's last dim must be {n_in}, got shape {tuple(x.shape)}")
    if bias is not None and tuple(bias.shape) != (n_out,):
        raise ValueError(f"bias must have shape ({n_out},), got {tuple(bias.shape)}")
    flat = x.reshape(-1, n_in)
    y = torch.mm(flat, weight.t()) if bias is None else torch.addmm(bias, flat, weight.t())
    return y.reshape(*x.shape[:-1], n_out)


def lstm_final_states(lstm: nn.LSTM, x: torch.Tensor) -> torch.Tensor:
    # Read the final states off `output` rather than h_n: the forward direction ends at
    # the last step, the backward one at step 0.
    output, _ = lstm(x)
    if not lstm.batch_first:
        output = output.transpose(0, 1)  # [B, T, H * dirs]
    size = lstm.proj_size or lstm.hidden_size
    forward = output[:, -1, :size]
    if not lstm.bidirectional:
        return forward
    return torch.cat((forward, output[:, 0, size:]), dim=-1)


def padded_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    key_padding_mask: torch.Tensor | None = None,
    causal: bool = False,
) -> torch.Tensor:
    keep = None
    if key_padding_mask is not None:
        keep = key_padding_mask.logical_not()[:, None, None, :]  # [B, 1, 1, S]
    if causal:
        L, S = q.shape[-2], k.shape[-2]
        rows = torch.arange(L, device=q.device).unsqueeze(-1)
        cols = torch.arange(S, device=q.device)
        tri = cols <= rows  # [L, S]
        keep = tri if keep is None else keep & tri
    return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)


def pool2d(x: torch.Tensor, kernel: int, mode: str = "max") -> torch.Tensor:
    if mode != "max" and mode != "avg":
        raise ValueError(mode)
    n, c, h, w = x.shape
    grid = x[:, :, : h - h % kernel, : w - w % kernel]
    grid = grid.reshape(n, c, h // kernel, kernel, w // kernel, kernel)
    flat = grid.permute(0, 1, 2, 4, 3, 5).flatten(-2)  # each window's k * k values last
    return flat.max(dim=-1).values if mode == "max" else flat.mean(dim=-1)
