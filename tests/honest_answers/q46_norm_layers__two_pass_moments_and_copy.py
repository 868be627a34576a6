"""Two-pass moments, (x - mean).square().mean(dims), an explicit compute dtype (float32 for the
half types, x's own otherwise), rsqrt, and a running update computed out of place then copy_'d
into the buffers."""

from collections.abc import Sequence

import torch


def _compute_dtype(x: torch.Tensor) -> torch.dtype:
    return torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype


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
        raise ValueError(f"x needs at least two dimensions, got shape {tuple(x.shape)}")
    C = x.shape[1]
    for name, buf in (("running_mean", running_mean), ("running_var", running_var)):
        if buf.shape != (C,):
            raise ValueError(f"{name} must have shape ({C},), got {tuple(buf.shape)}")
    dims = (0, *range(2, x.dim()))
    n = x.numel() // C if C else 0
    if training and n < 2:
        raise ValueError(f"training needs more than one value per channel, got {n}")

    dtype = _compute_dtype(x)
    xc = x.to(dtype)
    shape = (1, C) + (1,) * (x.dim() - 2)
    if training:
        mean = xc.mean(dims)
        var = (xc - mean.view(shape)).square().mean(dims)
        with torch.no_grad():
            unbiased = var * (n / (n - 1))
            new_mean = running_mean.to(dtype) * (1 - momentum) + mean * momentum
            new_var = running_var.to(dtype) * (1 - momentum) + unbiased * momentum
            running_mean.copy_(new_mean)
            running_var.copy_(new_var)
    else:
        mean, var = running_mean.to(dtype), running_var.to(dtype)

    y = (xc - mean.view(shape)) * torch.rsqrt(var + eps).view(shape)
    if weight is not None:
        y = y * weight.to(dtype).view(shape)
    if bias is not None:
        y = y + bias.to(dtype).view(shape)
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
    if x.dim() < k or tuple(x.shape[-k:]) != shape:
        raise ValueError(f"x's trailing dimensions {tuple(x.shape)} do not end with {shape}")

    dtype = _compute_dtype(x)
    xc = x.to(dtype)
    dims = tuple(range(-k, 0))
    mean = xc.mean(dims, keepdim=True)
    var = (xc - mean).square().mean(dims, keepdim=True)
    y = (xc - mean) * torch.rsqrt(var + eps)
    if weight is not None:
        y = y * weight.to(dtype)
    if bias is not None:
        y = y + bias.to(dtype)
    return y.to(x.dtype)
