"""Correct: set_grad_enabled(False), modes saved by name, mul_/add_ over zip, round plus a zero."""

import torch
from torch import nn


def evaluate(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    modes = {name: module.training for name, module in model.named_modules(remove_duplicate=False)}
    model.train(False)
    try:
        with torch.set_grad_enabled(False):
            out = model(x)
        return out.detach()
    finally:
        for name, module in model.named_modules(remove_duplicate=False):
            module.training = modes[name]


def ema_update_(target: nn.Module, source: nn.Module, decay: float) -> None:
    if not (decay >= 0.0 and decay <= 1.0):
        raise ValueError(f"decay {decay} is not in [0, 1]")
    mine, theirs = list(target.parameters()), list(source.parameters())
    if [p.shape for p in mine] != [p.shape for p in theirs]:
        raise ValueError("the modules' parameters do not match")
    with torch.no_grad():
        for p, q in zip(mine, theirs):
            p.mul_(decay).add_(q, alpha=1.0 - decay)


def round_ste(x: torch.Tensor) -> torch.Tensor:
    return torch.round(x).detach() + (x - x.detach())
