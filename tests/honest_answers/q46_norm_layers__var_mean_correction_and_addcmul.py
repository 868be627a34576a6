"""torch.var_mean(correction=0) for the batch statistics, the unbiased variance rescaled by
n / (n - 1), scale and shift folded into addcmul, reductions over a dims tuple with keepdim;
float32 only behind the 16-bit dtypes."""

from collections.abc import Sequence

import torch


def _compute_dtype(x: torch.Tensor) -> torch.dtype:
    return torch.promote_types(x.dtype, torch.float32)


def _affine(
    normed: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    shape: tuple[int, ...],
) -> torch.Tensor:
    dtype = normed.dtype
    if weight is None and bias is None:
        return normed
    if weight is None:
        return normed + bias.to(dtype).reshape(shape)  # type: ignore[union-attr]
    w = weight.to(dtype).reshape(shape)
    if bias is None:
        return normed * w
    return torch.addcmul(bias.to(dtype).reshape(shape), normed, w)


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
        raise ValueError("x must have a batch and a channel dimension")
    c = x.size(1)
    if running_mean.shape != torch.Size([c]) or running_var.shape != torch.Size([c]):
        raise ValueError(f"running statistics must be of shape ({c},)")
    reduce_dims = (0, *range(2, x.ndim))
    n = x.numel() // c if c else 0
    if training and n < 2:
        raise ValueError("expected more than 1 value per channel when training")
    broadcast = (1, c, *([1] * (x.ndim - 2)))
    dtype = _compute_dtype(x)
    xc = x.to(dtype)
    if training:
        var, mean = torch.var_mean(xc, dim=reduce_dims, correction=0)
        with torch.no_grad():
            unbiased = var * (n / (n - 1))
            new_mean = running_mean.to(dtype).mul(1 - momentum).add(mean, alpha=momentum)
            new_var = running_var.to(dtype).mul(1 - momentum).add(unbiased, alpha=momentum)
            running_mean.copy_(new_mean)
            running_var.copy_(new_var)
    else:
        mean, var = running_mean.to(dtype), running_var.to(dtype)
    inv_std = (var + eps).rsqrt()
    normed = (xc - mean.reshape(broadcast)) * inv_std.reshape(broadcast)
    return _affine(normed, weight, bias, broadcast).to(x.dtype)


def layer_norm(
    x: torch.Tensor,
    normalized_shape: int | Sequence[int],
    weight: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    eps: float = 1e-5,
) -> torch.Tensor:
    shape = torch.Size(
        [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    )
    if len(shape) == 0:
        raise ValueError("normalized_shape is empty")
    if x.ndim < len(shape) or x.shape[x.ndim - len(shape) :] != shape:
        raise ValueError(f"expected x to end in {list(shape)}, got {list(x.shape)}")
    dims = tuple(range(-len(shape), 0))
    xc = x.to(_compute_dtype(x))
    mean = xc.mean(dim=dims, keepdim=True)
    var = torch.square(xc - mean).mean(dim=dims, keepdim=True)
    normed = (xc - mean) * torch.rsqrt(var + eps)
    return _affine(normed, weight, bias, tuple(shape)).to(x.dtype)
