"""Training flags saved as a list in modules() order and zipped back in a finally; a
no_grad-decorated helper; mul_ then add_ with alpha; r.detach() + (x - x.detach())."""

import torch
from torch import nn


@torch.no_grad()
def _forward_unrecorded(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    return model(x).detach()  # detach: nn.Identity hands back x itself


def evaluate(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    modules = list(model.modules())
    flags = [m.training for m in modules]
    try:
        model.eval()
        return _forward_unrecorded(model, x)
    finally:
        for module, flag in zip(modules, flags, strict=True):
            module.training = flag


def ema_update_(target: nn.Module, source: nn.Module, decay: float) -> None:
    if not 0.0 <= decay <= 1.0:  # NaN fails both comparisons
        raise ValueError(f"decay must be in [0, 1], got {decay}")
    pairs = list(zip(target.parameters(), source.parameters()))
    if len(pairs) != len(list(target.parameters())) or len(pairs) != len(list(source.parameters())):
        raise ValueError("target and source have different numbers of parameters")
    if any(t.shape != s.shape for t, s in pairs):
        raise ValueError("target and source parameters differ in shape")
    with torch.no_grad():
        for t, s in pairs:
            t.mul_(decay).add_(s, alpha=1.0 - decay)


def round_ste(x: torch.Tensor) -> torch.Tensor:
    # x - x.detach() is exactly 0 in value and the identity in the graph
    return torch.round(x).detach() + (x - x.detach())
