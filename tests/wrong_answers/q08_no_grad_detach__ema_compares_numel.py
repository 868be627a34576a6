"""Wrong: compares the parameters' numbers of elements, so a (2, 3) and a (3, 2) parameter
pass as a match."""

import torch

from solutions.q08_no_grad_detach import evaluate, round_ste  # the rest as in the reference


def ema_update_(target, source, decay):
    if not 0.0 <= decay <= 1.0:
        raise ValueError(f"decay must be in [0, 1], got {decay}")
    pairs = list(zip(target.parameters(), source.parameters(), strict=False))
    counts = (len(list(target.parameters())), len(list(source.parameters())))
    if counts[0] != counts[1] or any(t.numel() != s.numel() for t, s in pairs):
        raise ValueError("target and source must have parameters of the same sizes")
    with torch.no_grad():
        for t, s in pairs:
            t.copy_(decay * t + (1 - decay) * s.reshape(t.shape))
