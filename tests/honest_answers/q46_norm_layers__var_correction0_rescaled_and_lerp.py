"""Statistics from torch.var(correction=0) with the unbiased variance rescaled by n / (n - 1);
per-channel parameters broadcast through a view shape; running statistics moved with lerp
in the compute dtype and copied back; layer norm's variance as the mean of squared deviations."""

from collections.abc import Sequence

import torch


def _compute_dtype(dtype: torch.dtype) -> torch.dtype:
    # float16 and bfloat16 are computed in float32; float32 and float64 as they are
    return torch.promote_types(dtype, torch.float32)


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
        raise ValueError(f"x needs at least 2 dimensions (N, C, ...), got {x.dim()}")
    channels = x.shape[1]
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        if stat.shape != (channels,):
            raise ValueError(f"{name} must have shape ({channels},), got {tuple(stat.shape)}")
    n = x.numel() // channels if channels else 0
    if training and n < 2:
        raise ValueError(f"training needs more than one value per channel, got {n}")
    dtype = _compute_dtype(x.dtype)
    xc = x.to(dtype)
    dims = [0, *range(2, x.dim())]
    view = (1, channels) + (1,) * (x.dim() - 2)
    if training:
        mean = xc.mean(dim=dims)
        var = torch.var(xc, dim=dims, correction=0)
        with torch.no_grad():
            unbiased = var.detach() * (n / (n - 1))
            new_mean = torch.lerp(running_mean.to(dtype), mean.detach(), momentum)
            new_var = torch.lerp(running_var.to(dtype), unbiased, momentum)
            running_mean.copy_(new_mean)
            running_var.copy_(new_var)
    else:
        mean, var = running_mean.to(dtype), running_var.to(dtype)
    y = (xc - mean.view(view)) * torch.rsqrt(var.view(view) + eps)
    if weight is not None:
        y = y * weight.to(dtype).view(view)
    if bias is not None:
        y = y + bias.to(dtype).view(view)
    return y.to(x.dtype)


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
    if x.dim() < k or tuple(x.shape[x.dim() - k :]) != shape:
        raise ValueError(f"x's trailing dimensions {tuple(x.shape)} do not match {shape}")
    dtype = _compute_dtype(x.dtype)
    xc = x.to(dtype)
    dims = tuple(range(x.dim() - k, x.dim()))
    mean = xc.mean(dim=dims, keepdim=True)
    deviation = xc - mean
    var = (deviation * deviation).mean(dim=dims, keepdim=True)
    y = deviation / torch.sqrt(var + eps)
    if weight is not None:
        y = y * weight.to(dtype)
    if bias is not None:
        y = y + bias.to(dtype)
    return y.to(x.dtype)
