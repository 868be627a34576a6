"""Wrong: evaluate restores the modes after the model returns, but not when it raises."""

import torch


def evaluate(model, x):
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    with torch.no_grad():
        out = model(x).detach()
    for module, training in modes:
        module.train(training)
    return out


def ema_update_(target, source, decay):
    if not 0.0 <= decay <= 1.0:
        raise ValueError(f"decay must be in [0, 1], got {decay}")
    pairs = list(zip(target.parameters(), source.parameters(), strict=False))
    counts = (len(list(target.parameters())), len(list(source.parameters())))
    if counts[0] != counts[1] or any(t.shape != s.shape for t, s in pairs):
        raise ValueError("target and source must have parameters of the same shapes")
    with torch.no_grad():
        for t, s in pairs:
            t.lerp_(s, 1.0 - decay)


def round_ste(x):
    return x + (torch.round(x) - x).detach()
