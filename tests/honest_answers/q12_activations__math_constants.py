"""math constants, early returns per mode, torch.where for the softplus branches."""

import math

import torch

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def gelu(x: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    low = x.dtype in (torch.float16, torch.bfloat16)
    wide = x.float() if low else x
    if approximate == "none":
        return (0.5 * wide * (1.0 + torch.erf(wide / math.sqrt(2.0)))).to(x.dtype)
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (wide + 0.044715 * wide.pow(3))
        return (0.5 * wide * (1.0 + torch.tanh(inner))).to(x.dtype)
    raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")


def silu(x: torch.Tensor) -> torch.Tensor:
    low = x.dtype in (torch.float16, torch.bfloat16)
    wide = x.float() if low else x
    return (wide * torch.sigmoid(wide)).to(x.dtype)


def softplus(x: torch.Tensor, beta: float = 1.0, threshold: float = 20.0) -> torch.Tensor:
    if not beta > 0:
        raise ValueError(f"beta must be positive, got {beta}")
    low = x.dtype in (torch.float16, torch.bfloat16)
    wide = x.float() if low else x
    scaled = wide * beta
    # Each branch gets inputs where its exp cannot overflow, so neither gradient is nan.
    positive = scaled > 0
    above = torch.where(positive, scaled, torch.zeros_like(scaled))
    below = torch.where(positive, torch.zeros_like(scaled), scaled)
    smooth = torch.where(
        positive, above + torch.log1p(torch.exp(-above)), torch.log1p(torch.exp(below))
    )
    smooth = smooth / beta
    out = torch.where(scaled > threshold, wide, smooth)
    return out.to(x.dtype)
