"""Kata 12: activation functions from primitives (reference answer)."""

import math

import torch


def _in_float32(x: torch.Tensor) -> torch.Tensor:
    # float16 and bfloat16 are computed in float32 and rounded once at the end, as torch
    # does: natively float16's x**3 overflows above about 40, and bfloat16 loses bits at
    # every step. (The gradient comes back through the conversion, rounded once too.)
    return x.float() if x.dtype in (torch.float16, torch.bfloat16) else x


def gelu(x: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    if approximate not in ("none", "tanh"):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    work = _in_float32(x)
    if approximate == "none":
        out = 0.5 * work * (1 + torch.erf(work / math.sqrt(2)))
    else:
        inner = math.sqrt(2 / math.pi) * (work + 0.044715 * work**3)
        out = 0.5 * work * (1 + torch.tanh(inner))
    return out.to(x.dtype)


def silu(x: torch.Tensor) -> torch.Tensor:
    # torch.sigmoid saturates to 0 or 1 without an inf, and its backward uses
    # sigmoid * (1 - sigmoid): no inf * 0 = nan, unlike x / (1 + exp(-x)).
    work = _in_float32(x)
    return (work * torch.sigmoid(work)).to(x.dtype)


def softplus(x: torch.Tensor, beta: float = 1.0, threshold: float = 20.0) -> torch.Tensor:
    if not beta > 0:  # NaN too
        raise ValueError(f"beta must be positive, got {beta}")
    # float16's exp overflows above about 11, well below the threshold.
    work = _in_float32(x)
    scaled = beta * work
    linear = scaled > threshold
    # Feed the exp only values at or below the threshold: torch.where sends a zero gradient
    # to the branch it does not pick, but 0 * inf is nan, so that branch must stay finite.
    safe = torch.where(linear, torch.zeros_like(scaled), scaled)
    # log1p keeps exp(beta * x) when it is far below 1, where 1 + exp(...) would round to 1.
    return torch.where(linear, work, torch.log1p(torch.exp(safe)) / beta).to(x.dtype)
