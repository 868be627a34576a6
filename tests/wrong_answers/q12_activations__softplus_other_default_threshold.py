"""Wrong: the default threshold is 30 instead of the 20 that F.softplus uses."""

import math

import torch


def gelu(x: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    if approximate == "none":
        return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
    if approximate == "tanh":
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)
        return 0.5 * x * (1 + torch.tanh(inner))
    raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")


def silu(x: torch.Tensor) -> torch.Tensor:
    # torch.sigmoid saturates to 0 or 1 without an inf, and its backward uses
    # sigmoid * (1 - sigmoid): no inf * 0 = nan, unlike x / (1 + exp(-x)).
    return x * torch.sigmoid(x)


def softplus(x: torch.Tensor, beta: float = 1.0, threshold: float = 30.0) -> torch.Tensor:
    if beta <= 0:
        raise ValueError(f"beta must be positive, got {beta}")
    # float16's exp overflows above about 11, well below the threshold: compute float16 and
    # bfloat16 in float32, as torch does, and round the result once at the end.
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    scaled = beta * work
    linear = scaled > threshold
    # Feed the exp only values at or below the threshold: torch.where sends a zero gradient
    # to the branch it does not pick, but 0 * inf is nan, so that branch must stay finite.
    safe = torch.where(linear, torch.zeros_like(scaled), scaled)
    # log1p keeps exp(beta * x) when it is far below 1, where 1 + exp(...) would round to 1.
    return torch.where(linear, work, torch.log1p(torch.exp(safe)) / beta).to(x.dtype)
