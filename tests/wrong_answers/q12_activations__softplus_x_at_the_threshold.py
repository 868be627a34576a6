"""Wrong: softplus switches to x already where beta * x == threshold."""

import torch

from solutions.q12_activations import gelu, silu  # the rest as in the reference


def softplus(x: torch.Tensor, beta: float = 1.0, threshold: float = 20.0) -> torch.Tensor:
    if beta <= 0:
        raise ValueError(f"beta must be positive, got {beta}")
    # float16's exp overflows above about 11, well below the threshold: compute float16 and
    # bfloat16 in float32, as torch does, and round the result once at the end.
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    scaled = beta * work
    linear = scaled >= threshold
    # Feed the exp only values at or below the threshold: torch.where sends a zero gradient
    # to the branch it does not pick, but 0 * inf is nan, so that branch must stay finite.
    safe = torch.where(linear, torch.zeros_like(scaled), scaled)
    # log1p keeps exp(beta * x) when it is far below 1, where 1 + exp(...) would round to 1.
    return torch.where(linear, work, torch.log1p(torch.exp(safe)) / beta).to(x.dtype)
