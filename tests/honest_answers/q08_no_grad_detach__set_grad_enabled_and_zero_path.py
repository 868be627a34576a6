"""set_grad_enabled(False) with a try/finally over named modes, mul_ and add_ with alpha, and an
STE as round(x) plus a zero that carries x's gradient."""

import math

import torch
from torch import nn


def evaluate(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    modes = [(module, module.training) for _, module in model.named_modules()]
    try:
        model.train(False)
        with torch.set_grad_enabled(False):
            out = model(x)
    finally:
        for module, mode in modes:
            module.training = mode
    # nn.Identity hands x back: never return the caller's tensor itself.
    return out.detach()


def _check_pairs(targets: list[nn.Parameter], sources: list[nn.Parameter]) -> None:
    if len(targets) != len(sources):
        raise ValueError(f"{len(targets)} parameters against {len(sources)}")
    mismatched = [i for i, (t, s) in enumerate(zip(targets, sources)) if t.shape != s.shape]
    if mismatched:
        raise ValueError(f"parameter shapes differ at positions {mismatched}")


def ema_update_(target: nn.Module, source: nn.Module, decay: float) -> None:
    if math.isnan(decay) or decay < 0 or decay > 1:
        raise ValueError(f"decay must lie in [0, 1], got {decay}")
    targets, sources = list(target.parameters()), list(source.parameters())
    _check_pairs(targets, sources)
    with torch.no_grad():
        for t, s in zip(targets, sources):
            t.mul_(decay).add_(s, alpha=1 - decay)


def round_ste(x: torch.Tensor) -> torch.Tensor:
    # x - x.detach() is exactly zero in value and has gradient 1 with respect to x.
    return (x - x.detach()) + torch.round(x).detach()
