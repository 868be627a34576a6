"""Kata 8: torch.no_grad() versus .detach() (reference answer)."""

import torch
from torch import nn


def evaluate(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    # Remember every submodule's mode: a model may be partly in eval mode on purpose.
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    try:
        # no_grad records nothing at all; model(x).detach() would build the whole graph
        # (and keep its activations) only to throw it away.
        with torch.no_grad():
            # detach: a model that returns its input (nn.Identity) would hand back x itself,
            # still requiring grad; under no_grad detach records nothing.
            return model(x).detach()
    finally:
        for module, training in modes:
            module.train(training)


def ema_update_(target: nn.Module, source: nn.Module, decay: float) -> None:
    if not 0.0 <= decay <= 1.0:
        raise ValueError(f"decay must be in [0, 1], got {decay}")
    pairs = list(zip(target.parameters(), source.parameters(), strict=False))
    counts = (len(list(target.parameters())), len(list(source.parameters())))
    if counts[0] != counts[1] or any(t.shape != s.shape for t, s in pairs):
        raise ValueError("target and source must have parameters of the same shapes")
    # Under no_grad an in-place update of a leaf that requires grad is allowed and is not
    # recorded; lerp_ computes t + (1 - decay) * (s - t) in place.
    with torch.no_grad():
        for t, s in pairs:
            t.lerp_(s, 1.0 - decay)


def round_ste(x: torch.Tensor) -> torch.Tensor:
    # Forward value: x + (round(x) - x) = round(x). Backward: the detached term is a
    # constant, so only the identity path through x remains and the gradient is exactly 1.
    return x + (torch.round(x) - x).detach()
