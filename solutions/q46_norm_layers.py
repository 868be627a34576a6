"""Kata 46: batch norm and layer norm from primitives (reference answer)."""

from collections.abc import Sequence

import torch

# Half-precision inputs are normalised in float32, as F.batch_norm and F.layer_norm do: a
# float16 variance overflows (to inf, so y becomes 0) once the spread passes about 256.
LOW_PRECISION = (torch.float16, torch.bfloat16)


def _wide(x: torch.Tensor) -> torch.Tensor:
    return x.float() if x.dtype in LOW_PRECISION else x


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
    if running_mean.shape != (channels,) or running_var.shape != (channels,):
        raise ValueError(f"running statistics must have shape ({channels},)")
    dims = [0, *range(2, x.dim())]  # every dimension but the channel one
    per_channel = (1, channels) + (1,) * (x.dim() - 2)  # broadcasts (C,) against x
    if training:
        n = x.numel() // channels
        if n < 2:
            raise ValueError("batch norm needs more than one value per channel when training")
        # var_mean is numerically careful (no E[x²] - E[x]²), so large offsets are fine.
        var, mean = torch.var_mean(_wide(x), dim=dims, correction=0)
        with torch.no_grad():  # running statistics are bookkeeping, not part of the graph
            # (1 - m) · running + m · batch, computed wide and rounded once: a 16-bit batch
            # variance may overflow where the running one fits. Bessel: the unbiased variance.
            running_mean.copy_(_wide(running_mean).lerp(mean, momentum))
            running_var.copy_(_wide(running_var).lerp(var * (n / (n - 1)), momentum))
    else:
        mean, var = _wide(running_mean), _wide(running_var)
    y = (_wide(x) - mean.reshape(per_channel)) * torch.rsqrt(var.reshape(per_channel) + eps)
    if weight is not None:
        y = y * weight.reshape(per_channel)
    if bias is not None:
        y = y + bias.reshape(per_channel)
    return y.to(x.dtype)


def layer_norm(
    x: torch.Tensor,
    normalized_shape: int | Sequence[int],
    weight: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    eps: float = 1e-5,
) -> torch.Tensor:
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape or x.dim() < len(shape) or tuple(x.shape[-len(shape) :]) != shape:
        raise ValueError(
            f"x's trailing dimensions {tuple(x.shape)} must equal normalized_shape {shape}"
        )
    dims = tuple(range(-len(shape), 0))
    # Each example on its own: nothing here mixes values across the leading dimensions.
    # Centred first, so large offsets are fine; unlike var_mean, mean does not warn
    # about degrees of freedom when the batch is empty.
    mean = _wide(x).mean(dim=dims, keepdim=True)
    centred = _wide(x) - mean
    var = centred.square().mean(dim=dims, keepdim=True)  # biased: divide by the count
    y = centred * torch.rsqrt(var + eps)
    if weight is not None:
        y = y * weight  # (normalized_shape) broadcasts against the trailing dimensions
    if bias is not None:
        y = y + bias
    return y.to(x.dtype)
