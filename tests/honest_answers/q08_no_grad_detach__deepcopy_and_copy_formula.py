"""Evaluate on a deep copy, EMA as copy_ of the formula, STE as x minus a detached residual."""

import copy

import torch
from torch import nn


def evaluate(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    # A throwaway copy: the caller's modules keep their modes whatever happens.
    shadow = copy.deepcopy(model)
    shadow.eval()
    with torch.no_grad():
        out = shadow(x)
    return out.detach()


def ema_update_(target: nn.Module, source: nn.Module, decay: float) -> None:
    if not (0.0 <= decay <= 1.0):
        raise ValueError(f"decay must be in [0, 1], got {decay}")
    targets = list(target.parameters())
    sources = list(source.parameters())
    if len(targets) != len(sources):
        raise ValueError("the modules have different numbers of parameters")
    for t, s in zip(targets, sources):
        if t.shape != s.shape:
            raise ValueError(f"shape mismatch: {tuple(t.shape)} vs {tuple(s.shape)}")
    with torch.no_grad():
        for t, s in zip(targets, sources):
            t.copy_(decay * t + (1.0 - decay) * s)


def round_ste(x: torch.Tensor) -> torch.Tensor:
    residual = x - torch.round(x)
    return x - residual.detach()
