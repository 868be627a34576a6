"""Correct: channels last (movedim + reshape(-1, C)); statistics by sums; no lerp_."""

import math
from collections.abc import Sequence

import torch


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
        raise ValueError("x must have a channel dimension")
    c = x.shape[1]
    if tuple(running_mean.shape) != (c,) or tuple(running_var.shape) != (c,):
        raise ValueError("running statistics must have shape (C,)")
    wide = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    last = wide.movedim(1, -1)  # (..., C)
    if training:
        rows = last.reshape(-1, c)
        n = rows.shape[0]
        if n < 2:
            raise ValueError("training needs two values per channel")
        mean = rows.sum(0) / n
        squares = ((rows - mean) ** 2).sum(0)
        var = squares / n
        with torch.no_grad():
            # In the wide dtype, rounded once by copy_: a 16-bit mul_ then add_ rounds twice.
            kept = 1 - momentum
            running_mean.copy_(kept * running_mean.to(wide.dtype) + momentum * mean)
            running_var.copy_(kept * running_var.to(wide.dtype) + momentum * squares / (n - 1))
    else:
        mean, var = running_mean.to(wide.dtype), running_var.to(wide.dtype)
    y = (last - mean) / torch.sqrt(var + eps)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y.movedim(-1, 1).to(x.dtype)


def layer_norm(
    x: torch.Tensor,
    normalized_shape: int | Sequence[int],
    weight: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    eps: float = 1e-5,
) -> torch.Tensor:
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    k = len(shape)
    if k == 0 or list(x.shape[x.dim() - k :]) != shape or x.dim() < k:
        raise ValueError("x must end with normalized_shape")
    wide = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    lead = x.shape[: x.dim() - k]
    rows = wide.reshape(*lead, math.prod(shape))
    mean = rows.mean(-1, keepdim=True)
    var = ((rows - mean) ** 2).mean(-1, keepdim=True)
    y = ((rows - mean) / torch.sqrt(var + eps)).reshape(x.shape)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y.to(x.dtype)
