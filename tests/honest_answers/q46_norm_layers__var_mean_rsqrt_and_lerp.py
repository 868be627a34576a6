"""A shared normalise helper with torch.var_mean(correction=0) and rsqrt; running statistics
updated with torch.lerp in float32 and copied back; layer norm flattens the normalised dims
into one and returns early for an empty input."""

import math
from collections.abc import Sequence

import torch


def _normalise(x: torch.Tensor, mean: torch.Tensor, var: torch.Tensor, eps: float) -> torch.Tensor:
    return (x - mean) * torch.rsqrt(var + eps)


def _affine(
    y: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None, shape: tuple[int, ...]
) -> torch.Tensor:
    if weight is not None:
        y = y * weight.reshape(shape).to(y.dtype)
    if bias is not None:
        y = y + bias.reshape(shape).to(y.dtype)
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
    if x.ndim < 2:
        raise ValueError("x must be (N, C) or (N, C, *spatial)")
    c = x.shape[1]
    if running_mean.shape != (c,) or running_var.shape != (c,):
        raise ValueError("running statistics must have shape (C,)")
    reduce_dims = (0, *range(2, x.ndim))
    n = math.prod(x.shape[d] for d in reduce_dims)
    if training and n < 2:
        raise ValueError("training batch norm needs at least 2 values per channel")
    bshape = (1, c) + (1,) * (x.ndim - 2)
    calc = torch.float64 if x.dtype == torch.float64 else torch.float32
    xc = x.to(calc)
    if training:
        var, mean = torch.var_mean(xc, dim=reduce_dims, correction=0)
        with torch.no_grad():
            new_mean = torch.lerp(running_mean.to(calc), mean, momentum)
            new_var = torch.lerp(running_var.to(calc), var * n / (n - 1), momentum)
            running_mean.copy_(new_mean)
            running_var.copy_(new_var)
    else:
        mean, var = running_mean.to(calc), running_var.to(calc)
    y = _normalise(xc, mean.reshape(bshape), var.reshape(bshape), eps)
    return _affine(y, weight, bias, bshape).to(x.dtype)


def layer_norm(
    x: torch.Tensor,
    normalized_shape: int | Sequence[int],
    weight: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    eps: float = 1e-5,
) -> torch.Tensor:
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    norm = torch.Size(normalized_shape)
    if len(norm) == 0:
        raise ValueError("normalized_shape is empty")
    lead = x.shape[: x.ndim - len(norm)]
    if x.ndim < len(norm) or x.shape[len(lead) :] != norm:
        raise ValueError(f"expected trailing dimensions {list(norm)}, got {list(x.shape)}")
    calc = torch.float64 if x.dtype == torch.float64 else torch.float32
    if x.numel() == 0:  # nothing to normalise; keep the graph to weight and bias
        return _affine(x.to(calc) * 0, weight, bias, tuple(norm)).to(x.dtype)
    flat = x.to(calc).reshape(*lead, -1)
    var, mean = torch.var_mean(flat, dim=-1, correction=0, keepdim=True)
    y = _normalise(flat, mean, var, eps).reshape(x.shape)
    return _affine(y, weight, bias, tuple(norm)).to(x.dtype)
