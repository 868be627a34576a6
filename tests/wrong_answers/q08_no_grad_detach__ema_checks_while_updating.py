"""Wrong: checks each pair while updating, so a mismatch found late leaves target partly
updated."""

import torch

from solutions.q08_no_grad_detach import evaluate, round_ste  # the rest as in the reference


def ema_update_(target, source, decay):
    if not 0.0 <= decay <= 1.0:
        raise ValueError(f"decay must be in [0, 1], got {decay}")
    with torch.no_grad():
        for t, s in zip(target.parameters(), source.parameters(), strict=True):
            if t.shape != s.shape:
                raise ValueError("target and source must have parameters of the same shapes")
            t.lerp_(s, 1.0 - decay)
