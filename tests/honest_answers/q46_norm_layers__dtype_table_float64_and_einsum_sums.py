"""A table of working dtypes (float64 behind float32, float32 behind the 16-bit ones), per-channel
sums by einsum over `...`, the running update as (1 - m) r + m s under a no_grad-decorated
helper, layer norm on the trailing dimensions flattened into one."""

import math
from collections.abc import Sequence

import torch

# The dtype each input dtype is computed in; y and the running statistics are rounded once
# from it to the input's own dtype.
_WORK = {
    torch.float16: torch.float32,
    torch.bfloat16: torch.float32,
    torch.float32: torch.float64,
}


def _work(x: torch.Tensor) -> torch.dtype:
    return _WORK.get(x.dtype, x.dtype)


@torch.no_grad()
def _blend(running: torch.Tensor, batch: torch.Tensor, momentum: float) -> None:
    wide = running.to(batch.dtype)
    running.copy_((1 - momentum) * wide + momentum * batch)


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
        if tuple(stat.shape) != (channels,):
            raise ValueError(f"{name} must have shape ({channels},), got {tuple(stat.shape)}")
    n = x.shape[0] * math.prod(x.shape[2:])
    if training and n < 2:
        raise ValueError(f"training needs more than one value per channel, got {n}")
    dtype = _work(x)
    per_channel = (1, channels) + (1,) * (x.dim() - 2)
    xw = x.to(dtype)
    if training:
        mean = torch.einsum("nc...->c", xw) / n
        centred = xw - mean.view(per_channel)
        squares = torch.einsum("nc...,nc...->c", centred, centred)
        var = squares / n
        _blend(running_mean, mean, momentum)
        _blend(running_var, squares / (n - 1), momentum)
    else:
        mean = running_mean.to(dtype)
        var = running_var.to(dtype)
        centred = xw - mean.view(per_channel)
    y = centred * torch.rsqrt(var + eps).view(per_channel)
    if weight is not None:
        y = y * weight.to(dtype).view(per_channel)
    if bias is not None:
        y = y + bias.to(dtype).view(per_channel)
    return y.to(x.dtype)


def layer_norm(
    x: torch.Tensor,
    normalized_shape: int | Sequence[int],
    weight: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    eps: float = 1e-5,
) -> torch.Tensor:
    if isinstance(normalized_shape, int):
        shape: tuple[int, ...] = (normalized_shape,)
    else:
        shape = tuple(int(size) for size in normalized_shape)
    if not shape:
        raise ValueError("normalized_shape must name at least one dimension")
    k = len(shape)
    if x.dim() < k or tuple(x.shape[x.dim() - k :]) != shape:
        raise ValueError(f"x of shape {tuple(x.shape)} does not end in {shape}")
    dtype = _work(x)
    rows = x.to(dtype).flatten(start_dim=x.dim() - k)  # (*leading, prod(shape))
    mean = rows.mean(dim=-1, keepdim=True)
    centred = rows - mean
    var = (centred * centred).mean(dim=-1, keepdim=True)
    y = centred * torch.rsqrt(var + eps)
    if weight is not None:
        y = y * weight.to(dtype).flatten()
    if bias is not None:
        y = y + bias.to(dtype).flatten()
    return y.reshape(x.shape).to(x.dtype)
