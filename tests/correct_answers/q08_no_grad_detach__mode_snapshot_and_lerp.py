"""Correct: a snapshot of every module's mode restored in finally, set_grad_enabled(False),
an EMA with Tensor.lerp_, and straight-through as round plus a zero-valued path."""

import torch
from torch import nn


def evaluate(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    modes = {module: module.training for module in model.modules()}
    try:
        model.eval()
        with torch.set_grad_enabled(False):
            out = model(x)
    finally:
        for module, training in modes.items():
            module.train(training)
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
