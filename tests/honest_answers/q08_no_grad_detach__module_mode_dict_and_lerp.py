"""A dict of module modes with try/finally, lerp_ for the EMA, a zero-valued STE path."""

import torch
from torch import nn


def evaluate(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """Run model(x) in eval mode under no_grad, then restore every module's own mode."""
    modes = {module: module.training for module in model.modules()}
    try:
        model.eval()
        with torch.no_grad():
            out = model(x)
    finally:
        for module, training in modes.items():
            module.training = training
    return out.detach()


def ema_update_(target: nn.Module, source: nn.Module, decay: float) -> None:
    """t <- t + (1 - decay) * (s - t) via lerp_, after validating everything."""
    if not 0.0 <= decay <= 1.0:
        raise ValueError(f"decay must be in [0, 1], got {decay}")
    pairs = list(zip(target.parameters(), source.parameters(), strict=False))
    n_target = sum(1 for _ in target.parameters())
    n_source = sum(1 for _ in source.parameters())
    if n_target != n_source or any(t.shape != s.shape for t, s in pairs):
        raise ValueError("target and source parameters do not match")
    with torch.no_grad():
        for t, s in pairs:
            t.lerp_(s, 1.0 - decay)


def round_ste(x: torch.Tensor) -> torch.Tensor:
    """round(x) plus (x - x.detach()), which is 0 in value and the identity in gradient."""
    return x.detach().round() + (x - x.detach())
