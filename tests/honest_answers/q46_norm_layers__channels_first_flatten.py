"""Stats on flattened views (channels first; trailing dims flattened), rsqrt, lerp_ updates."""

import math
from collections.abc import Sequence

import torch


def _per_channel(t: torch.Tensor | None, shape: tuple[int, ...]) -> torch.Tensor | None:
    return None if t is None else t.reshape(shape)


def batch_norm(
    x: torch.Tensor,
    running_mean: torch.Tensor,
    running_var: torch.Tensor,
    weight: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    training: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> torch.Tensor:
    if x.dim() < 2:
        raise ValueError(f"batch_norm needs (N, C, ...) input, got shape {tuple(x.shape)}")
    channels = x.shape[1]
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        if stat.shape != (channels,):
            raise ValueError(f"{name} must have shape ({channels},), got {tuple(stat.shape)}")
    n = x.shape[0] * math.prod(x.shape[2:])
    dtype, x = x.dtype, x.to(torch.promote_types(x.dtype, torch.float32))  # half: stats in float32
    broadcast = (1, channels) + (1,) * (x.dim() - 2)
    if training:
        if n < 2:
            raise ValueError(f"batch_norm needs more than one value per channel, got {n}")
        by_channel = x.transpose(0, 1).reshape(channels, n)
        var, mean = torch.var_mean(by_channel, dim=1, correction=0)
        with torch.no_grad():
            running_mean.copy_(running_mean.to(x.dtype).lerp(mean, momentum))
            running_var.copy_(running_var.to(x.dtype).lerp(var * (n / (n - 1)), momentum))
    else:
        mean, var = running_mean.to(x.dtype), running_var.to(x.dtype)
    y = (x - mean.reshape(broadcast)) * torch.rsqrt(var.reshape(broadcast) + eps)
    scale, shift = _per_channel(weight, broadcast), _per_channel(bias, broadcast)
    if scale is not None:
        y = y * scale
    if shift is not None:
        y = y + shift
    return y.to(dtype)


def layer_norm(
    x: torch.Tensor,
    normalized_shape: int | Sequence[int],
    weight: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    eps: float = 1e-5,
) -> torch.Tensor:
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k == 0:
        raise ValueError("normalized_shape must not be empty")
    if x.dim() < k or tuple(x.shape[-k:]) != shape:
        raise ValueError(f"x's trailing dimensions {tuple(x.shape)} do not end with {shape}")
    flat = x.flatten(start_dim=x.dim() - k).to(torch.promote_types(x.dtype, torch.float32))
    mean = flat.mean(dim=-1, keepdim=True)
    centred = flat - mean
    var = centred.square().mean(dim=-1, keepdim=True)  # not var_mean: it warns when empty
    y = (centred * torch.rsqrt(var + eps)).reshape(x.shape)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y.to(x.dtype)
