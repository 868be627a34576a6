"""contextlib.contextmanager restoring each submodule's mode from a dict, lists compared."""

import contextlib
import math
from collections.abc import Iterator

import torch
from torch import nn


@contextlib.contextmanager
def _eval_mode(model: nn.Module) -> Iterator[nn.Module]:
    modes = {module: module.training for module in model.modules()}
    model.eval()
    try:
        yield model
    finally:
        for module, mode in modes.items():
            module.training = mode


def evaluate(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    with _eval_mode(model), torch.no_grad():
        out = model(x)
    return out.detach()


def ema_update_(target: nn.Module, source: nn.Module, decay: float) -> None:
    if math.isnan(decay) or not 0.0 <= decay <= 1.0:
        raise ValueError(f"decay must be in [0, 1], got {decay}")
    targets, sources = list(target.parameters()), list(source.parameters())
    if len(targets) != len(sources):
        raise ValueError("target and source have different numbers of parameters")
    pairs = list(zip(targets, sources, strict=True))
    if any(t.shape != s.shape for t, s in pairs):
        raise ValueError("parameter shapes differ")
    with torch.no_grad():
        for t, s in pairs:
            t.mul_(decay).add_(s, alpha=1.0 - decay)


def round_ste(x: torch.Tensor) -> torch.Tensor:
    return x + (torch.round(x) - x).detach()
