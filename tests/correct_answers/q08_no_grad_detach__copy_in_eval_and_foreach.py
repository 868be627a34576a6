"""Correct: evaluate runs a deep copy of the model in eval mode (the caller's modes are never
touched), ema_update_ updates all pairs with one foreach call, round_ste adds the detached
rounding to x's identity path written the other way round."""

import copy

import torch
from torch import nn


def evaluate(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    frozen = copy.deepcopy(model).eval()
    with torch.no_grad():
        return frozen(x).detach()


def ema_update_(target: nn.Module, source: nn.Module, decay: float) -> None:
    if not (0.0 <= decay <= 1.0):
        raise ValueError(f"decay must be in [0, 1], got {decay}")
    targets, sources = list(target.parameters()), list(source.parameters())
    if len(targets) != len(sources) or any(
        t.shape != s.shape for t, s in zip(targets, sources, strict=True)
    ):
        raise ValueError("target and source do not match")
    with torch.no_grad():
        torch._foreach_mul_(targets, decay)
        torch._foreach_add_(targets, sources, alpha=1.0 - decay)


def round_ste(x: torch.Tensor) -> torch.Tensor:
    return torch.round(x).detach() + (x - x.detach())
