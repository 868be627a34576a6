"""Wrong: checks each pair while updating, so a mismatch found late leaves target partly
updated."""

import torch


def evaluate(model, x):
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    try:
        with torch.no_grad():
            return model(x).detach()
    finally:
        for module, training in modes:
            module.train(training)


def ema_update_(target, source, decay):
    if not 0.0 <= decay <= 1.0:
        raise ValueError(f"decay must be in [0, 1], got {decay}")
    with torch.no_grad():
        for t, s in zip(target.parameters(), source.parameters(), strict=True):
            if t.shape != s.shape:
                raise ValueError("target and source must have parameters of the same shapes")
            t.lerp_(s, 1.0 - decay)


def round_ste(x):
    return x + (torch.round(x) - x).detach()
