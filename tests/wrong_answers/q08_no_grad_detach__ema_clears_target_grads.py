"""Wrong: ema_update_ ends with target.zero_grad(), which sets the target's .grad to None
instead of leaving it as it was."""

import torch

from solutions.q08_no_grad_detach import evaluate, round_ste


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
    target.zero_grad()  # "stale gradients would confuse the optimizer"
