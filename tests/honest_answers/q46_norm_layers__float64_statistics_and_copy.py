"""Everything computed in float64 and rounded once, running statistics written with copy_."""

from collections.abc import Sequence

import torch


def _affine(
    y: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None, shape: Sequence[int]
) -> torch.Tensor:
    if weight is not None:
        y = y * weight.to(y.dtype).reshape(shape)
    if bias is not None:
        y = y + bias.to(y.dtype).reshape(shape)
    return y


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
        raise ValueError(f"x needs at least two dims, got {x.dim()}")
    channels = x.shape[1]
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        if stat.shape != (channels,):
            raise ValueError(f"{name} must have shape ({channels},), got {tuple(stat.shape)}")
    dims = [0, *range(2, x.dim())]
    n = x.numel() // channels if channels else 0
    if training and n < 2:
        raise ValueError(f"training needs at least two values per channel, got {n}")
    shape = [1, channels] + [1] * (x.dim() - 2)
    wide = x.to(torch.float64)
    if training:
        mean = wide.mean(dim=dims)
        biased = wide.var(dim=dims, correction=0)
        with torch.no_grad():
            unbiased = biased.detach() * (n / (n - 1))
            running_mean.copy_(torch.lerp(running_mean.double(), mean.detach(), momentum))
            running_var.copy_(torch.lerp(running_var.double(), unbiased, momentum))
    else:
        mean, biased = running_mean.double(), running_var.double()
    y = (wide - mean.reshape(shape)) / torch.sqrt(biased.reshape(shape) + eps)
    return _affine(y, weight, bias, shape).to(x.dtype)


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
    if x.dim() < len(shape) or tuple(x.shape[-len(shape) :]) != shape:
        raise ValueError(f"x's trailing dims {tuple(x.shape)} do not end with {shape}")
    dims = tuple(range(-len(shape), 0))
    wide = x.to(torch.float64)
    mean = wide.mean(dim=dims, keepdim=True)
    centred = wide - mean
    var = centred.square().mean(dim=dims, keepdim=True)
    y = centred * torch.rsqrt(var + eps)
    return _affine(y, weight, bias, shape).to(x.dtype)
