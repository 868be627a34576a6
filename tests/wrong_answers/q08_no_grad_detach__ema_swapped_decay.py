"""Wrong: ema_update_ gives the weight `decay` to the source instead of to the target."""

import torch

from solutions.q08_no_grad_detach import evaluate, round_ste  # the rest as in the reference


def ema_update_(target, source, decay):
    if not 0.0 <= decay <= 1.0:
        raise ValueError("decay must be in [0, 1]")
    params = list(target.parameters()), list(source.parameters())
    if len(params[0]) != len(params[1]) or any(
        t.shape != s.shape for t, s in zip(*params, strict=True)
    ):
        raise ValueError("target and source do not match")
    with torch.no_grad():
        for t, s in zip(*params, strict=True):
            t.mul_(1 - decay).add_(s, alpha=decay)
