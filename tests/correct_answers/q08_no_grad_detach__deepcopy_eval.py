"""Correct: evaluate runs a deep copy of the model in eval mode, which the contract allows."""

import copy

import torch
from torch import nn


def evaluate(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    # A deep copy in eval mode: the caller's modules and modes are never touched (twice the memory).
    twin = copy.deepcopy(model).eval()
    with torch.no_grad():
        out = twin(x)
    # Identity hands back x itself: detach makes it a new tensor cut off from the graph.
    return out.detach()


def ema_update_(target: nn.Module, source: nn.Module, decay: float) -> None:
    if not 0.0 <= decay <= 1.0:
        raise ValueError(f"decay must be in [0, 1], got {decay}")
    targets, sources = list(target.parameters()), list(source.parameters())
    if len(targets) != len(sources):
        raise ValueError(f"{len(targets)} parameters against {len(sources)}")
    for t, s in zip(targets, sources, strict=True):
        if t.shape != s.shape:
            raise ValueError(f"shape {tuple(t.shape)} against {tuple(s.shape)}")
    with torch.no_grad():
        for t, s in zip(targets, sources, strict=True):
            # t + (1 - decay) * (s - t) is decay * t + (1 - decay) * s.
            t.lerp_(s, 1.0 - decay)


def round_ste(x: torch.Tensor) -> torch.Tensor:
    # x - x.detach() is 0 in value but carries x's identity gradient.
    return torch.round(x).detach() + (x - x.detach())
