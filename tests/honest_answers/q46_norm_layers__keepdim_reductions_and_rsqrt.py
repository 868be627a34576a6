"""Statistics by keepdim reductions over a tuple of dims (no reshape of x), rsqrt."""

import math
from collections.abc import Sequence

import torch


def _compute_dtype(x: torch.Tensor) -> torch.dtype:
    """float16 and bfloat16 compute in float32; float32 and float64 as they are."""
    return torch.promote_types(x.dtype, torch.float32)


def _affine(
    normed: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    shape: Sequence[int],
) -> torch.Tensor:
    if weight is not None:
        normed = normed * weight.reshape(shape)
    if bias is not None:
        normed = normed + bias.reshape(shape)
    return normed


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
        raise ValueError(f"x must be (N, C, ...), got shape {tuple(x.shape)}")
    channels = x.shape[1]
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        if stat.shape != (channels,):
            raise ValueError(f"{name} must have shape ({channels},), got {tuple(stat.shape)}")
    dims = (0, *range(2, x.dim()))
    n = math.prod(x.shape[d] for d in dims)
    if training and n < 2:
        raise ValueError(f"training needs at least two values per channel, got {n}")

    per_channel = (1, channels) + (1,) * (x.dim() - 2)
    xf = x.to(_compute_dtype(x))
    if training:
        mean = xf.mean(dim=dims, keepdim=True)
        var = (xf - mean).square().mean(dim=dims, keepdim=True)  # biased, for normalising
        with torch.no_grad():
            unbiased = var.reshape(channels) * (n / (n - 1))
            for running, batch in ((running_mean, mean.reshape(channels)), (running_var, unbiased)):
                updated = (1 - momentum) * running.to(batch.dtype) + momentum * batch
                running.copy_(updated)  # rounded once into the buffer's own dtype and memory
    else:
        mean = running_mean.to(xf.dtype).reshape(per_channel)
        var = running_var.to(xf.dtype).reshape(per_channel)
    normed = (xf - mean) * torch.rsqrt(var + eps)
    return _affine(normed, weight, bias, per_channel).to(x.dtype)


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
        raise ValueError(f"x's trailing dimensions {tuple(x.shape)} do not end with {shape}")
    dims = tuple(range(-len(shape), 0))
    xf = x.to(_compute_dtype(x))
    mean = xf.mean(dim=dims, keepdim=True)
    var = (xf - mean).square().mean(dim=dims, keepdim=True)
    normed = (xf - mean) * torch.rsqrt(var + eps)
    return _affine(normed, weight, bias, shape).to(x.dtype)
