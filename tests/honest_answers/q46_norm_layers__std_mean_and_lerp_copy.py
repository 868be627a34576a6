"""torch.std_mean for the unbiased batch statistic (biased variance rescaled from it), the
running statistics blended with lerp_ on a float32 copy then copied back, layer_norm with
torch.var_mean over the trailing dims and a separate path for an empty input."""

from collections.abc import Sequence

import torch


def _work_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


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
        raise ValueError("batch_norm needs x of shape (N, C, ...)")
    channels = x.size(1)
    if running_mean.shape != torch.Size([channels]) or running_var.shape != torch.Size([channels]):
        raise ValueError(
            f"running statistics must have shape ({channels},), got "
            f"{tuple(running_mean.shape)} and {tuple(running_var.shape)}"
        )
    n = x.numel() // max(channels, 1)
    if training and n < 2:
        raise ValueError(f"expected more than 1 value per channel when training, got {n}")

    work = _work_dtype(x.dtype)
    xw = x.to(work)
    reduce_dims = [d for d in range(x.ndim) if d != 1]
    bshape = [1] * x.ndim
    bshape[1] = channels
    if training:
        std_unbiased, mean = torch.std_mean(xw, dim=reduce_dims, correction=1)
        var_unbiased = std_unbiased.square()
        var = var_unbiased * ((n - 1) / n)
        with torch.no_grad():
            for running, stat in ((running_mean, mean), (running_var, var_unbiased)):
                blended = running.to(work).lerp_(stat.detach(), momentum)
                running.copy_(blended)
    else:
        mean, var = running_mean.to(work), running_var.to(work)

    scale = torch.rsqrt(var + eps)
    if weight is not None:
        scale = scale * weight.to(work)
    y = (xw - mean.reshape(bshape)) * scale.reshape(bshape)
    if bias is not None:
        y = y + bias.to(work).reshape(bshape)
    return y.to(x.dtype)


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
        raise ValueError("normalized_shape must name at least one dimension")
    if x.ndim < len(norm) or x.shape[x.ndim - len(norm) :] != norm:
        raise ValueError(f"x of shape {tuple(x.shape)} does not end in {tuple(norm)}")

    work = _work_dtype(x.dtype)
    xw = x.to(work)
    dims = list(range(x.ndim - len(norm), x.ndim))
    if xw.numel() == 0:
        # Nothing to normalise; keep the graph (an empty gradient) without var_mean's warning.
        y = xw - xw.sum(dims, keepdim=True)
    else:
        var, mean = torch.var_mean(xw, dim=dims, correction=0, keepdim=True)
        y = (xw - mean) * torch.rsqrt(var + eps)
    if weight is not None:
        y = y * weight.to(work)
    if bias is not None:
        y = y + bias.to(work)
    return y.to(x.dtype)
