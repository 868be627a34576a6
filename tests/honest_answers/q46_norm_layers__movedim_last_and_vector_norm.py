"""Channels moved last (movedim) so parameters broadcast as they are; the variance from
torch.linalg.vector_norm of the centred values; running statistics updated with mul_/add_ on
a float32 copy for half dtypes; layer norm over the trailing dims flattened into one."""

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
    if x.ndim < 2:
        raise ValueError("batch_norm needs x of shape (N, C) or (N, C, *spatial)")
    C = x.size(1)
    if tuple(running_mean.shape) != (C,) or tuple(running_var.shape) != (C,):
        raise ValueError(f"running statistics must have shape ({C},)")
    half = x.dtype in (torch.float16, torch.bfloat16)
    work = x.float() if half else x
    last = work.movedim(1, -1)  # (..., C)
    rows = last.flatten(0, -2)  # (n, C): every value of a channel in its column
    n = rows.shape[0]
    if training:
        if n < 2:
            raise ValueError(f"need at least two values per channel in training, got {n}")
        mean = rows.sum(0) / n
        squares = torch.linalg.vector_norm(rows - mean, ord=2, dim=0) ** 2
        var = squares / n
        with torch.no_grad():
            for running, batch in ((running_mean, mean), (running_var, squares / (n - 1))):
                updated = running.to(work.dtype).mul(1 - momentum)
                running.copy_(updated.add_(batch.detach(), alpha=momentum))
    else:
        mean, var = running_mean.to(work.dtype), running_var.to(work.dtype)
    y = (last - mean) / torch.sqrt(var + eps)
    if weight is not None:
        y = y * weight.to(work.dtype)
    if bias is not None:
        y = y + bias.to(work.dtype)
    return y.movedim(-1, 1).to(x.dtype)


def layer_norm(
    x: torch.Tensor,
    normalized_shape: int | Sequence[int],
    weight: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    eps: float = 1e-5,
) -> torch.Tensor:
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    shape = torch.Size(normalized_shape)
    if len(shape) == 0:
        raise ValueError("empty normalized_shape")
    if x.ndim < len(shape) or x.shape[x.ndim - len(shape) :] != shape:
        raise ValueError(f"x of shape {tuple(x.shape)} does not end in {tuple(shape)}")
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    flat = work.flatten(start_dim=x.ndim - len(shape))  # (*leading, features)
    count = shape.numel()
    mean = flat.sum(-1, keepdim=True) / count
    centred = flat - mean
    var = torch.linalg.vector_norm(centred, dim=-1, keepdim=True) ** 2 / count
    y = (centred / torch.sqrt(var + eps)).reshape(work.shape)
    if weight is not None:
        y = y * weight.to(work.dtype)
    if bias is not None:
        y = y + bias.to(work.dtype)
    return y.to(x.dtype)
