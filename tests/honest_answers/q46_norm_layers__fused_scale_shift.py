"""Normalisation folded into one per-channel scale and shift, y = x * scale + shift with
scale = weight / sqrt(var + eps) and shift = bias - mean * scale (the fused inference
form), applied with torch.addcmul; statistics from torch.mean and torch.var(correction=0)."""

from collections.abc import Sequence

import torch


def _calc_dtype(x: torch.Tensor) -> torch.dtype:
    return torch.float64 if x.dtype == torch.float64 else torch.float32


def _scale_shift(
    mean: torch.Tensor,
    var: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    eps: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    scale = 1.0 / torch.sqrt(var + eps)
    if weight is not None:
        scale = scale * weight.to(scale.dtype)
    shift = -mean * scale
    if bias is not None:
        shift = shift + bias.to(shift.dtype)
    return scale, shift


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
        raise ValueError("need (N, C, ...)")
    C = x.size(1)
    if list(running_mean.shape) != [C] or list(running_var.shape) != [C]:
        raise ValueError("running stats must be (C,)")
    n = x.numel() // max(C, 1)
    if training and n < 2:
        raise ValueError("need at least 2 values per channel in training")
    dt = _calc_dtype(x)
    xc = x.to(dt).transpose(0, 1).reshape(C, -1)
    if training:
        mean = xc.mean(dim=1)
        var = xc.var(dim=1, correction=0)
        with torch.no_grad():
            for buf, stat in ((running_mean, mean), (running_var, var * (n / (n - 1)))):
                buf.copy_(buf.to(dt) * (1 - momentum) + stat.detach() * momentum)
    else:
        mean, var = running_mean.to(dt), running_var.to(dt)
    scale, shift = _scale_shift(mean, var, weight, bias, eps)
    view = (1, C) + (1,) * (x.dim() - 2)
    y = torch.addcmul(shift.reshape(view), x.to(dt), scale.reshape(view))
    return y.to(x.dtype)


def layer_norm(
    x: torch.Tensor,
    normalized_shape: int | Sequence[int],
    weight: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    eps: float = 1e-5,
) -> torch.Tensor:
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    if not shape:
        raise ValueError("normalized_shape must be non-empty")
    if list(x.shape[-len(shape) :]) != shape or x.dim() < len(shape):
        raise ValueError("trailing dimensions of x do not match normalized_shape")
    dims = tuple(range(-len(shape), 0))
    xf = x.to(_calc_dtype(x))
    mean = xf.mean(dim=dims, keepdim=True)
    var = (xf - mean).square().mean(dim=dims, keepdim=True)
    y = (xf - mean) / torch.sqrt(var + eps)
    if weight is not None:
        y = y * weight.to(y.dtype)
    if bias is not None:
        y = y + bias.to(y.dtype)
    return y.to(x.dtype)
