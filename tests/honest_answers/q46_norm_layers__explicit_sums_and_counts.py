"""Statistics as explicit sums divided by explicit counts, in a float32-or-wider working
dtype; running statistics updated as mul_/add_ on a working copy that is copied back."""

import math
from collections.abc import Sequence

import torch


def _work_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.promote_types(dtype, torch.float32)


def _channel_view(t: torch.Tensor, ndim: int) -> torch.Tensor:
    return t.reshape((1, -1) + (1,) * (ndim - 2))


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
        raise ValueError(f"batch_norm needs at least 2 dimensions, got {x.dim()}")
    channels = x.shape[1]
    for label, stat in (("running_mean", running_mean), ("running_var", running_var)):
        if tuple(stat.shape) != (channels,):
            raise ValueError(f"{label} has shape {tuple(stat.shape)}, expected ({channels},)")
    n = x.numel() // channels if channels else 0
    if training and n < 2:
        raise ValueError(f"expected more than 1 value per channel when training, got {n}")

    wd = _work_dtype(x.dtype)
    xw = x.to(wd)
    dims = [0, *range(2, x.dim())]
    if training:
        mean = xw.sum(dims) / n
        centred = xw - _channel_view(mean, x.dim())
        var = centred.square().sum(dims) / n
        with torch.no_grad():
            unbiased = var.detach() * (n / (n - 1))
            for stat, batch_stat in ((running_mean, mean.detach()), (running_var, unbiased)):
                new = stat.to(wd).mul_(1 - momentum).add_(batch_stat * momentum)
                stat.copy_(new)
    else:
        mean = running_mean.to(wd)
        var = running_var.to(wd)
        centred = xw - _channel_view(mean, x.dim())
    y = centred / _channel_view(torch.sqrt(var + eps), x.dim())
    if weight is not None:
        y = y * _channel_view(weight.to(wd), x.dim())
    if bias is not None:
        y = y + _channel_view(bias.to(wd), x.dim())
    return y.to(x.dtype)


def layer_norm(
    x: torch.Tensor,
    normalized_shape: int | Sequence[int],
    weight: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    eps: float = 1e-5,
) -> torch.Tensor:
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape:
        raise ValueError("normalized_shape must not be empty")
    k = len(shape)
    if x.dim() < k or tuple(x.shape[x.dim() - k :]) != tuple(int(s) for s in shape):
        raise ValueError(f"x's trailing dimensions {tuple(x.shape)} do not end in {shape}")
    count = math.prod(shape)
    dims = list(range(x.dim() - k, x.dim()))
    wd = _work_dtype(x.dtype)
    xw = x.to(wd)
    mean = xw.sum(dims, keepdim=True) / count
    centred = xw - mean
    var = centred.square().sum(dims, keepdim=True) / count
    y = centred / torch.sqrt(var + eps)
    if weight is not None:
        y = y * weight.to(wd)
    if bias is not None:
        y = y + bias.to(wd)
    return y.to(x.dtype)
