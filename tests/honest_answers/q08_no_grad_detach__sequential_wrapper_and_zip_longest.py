"""evaluate calls the model through an nn.Sequential wrapper built around it, in a no_grad
decorated helper; the EMA with mul_/add_(alpha=) after a zip_longest check; round_ste adds the
rounded value in place onto the recorded zero x - x.detach()."""

from itertools import zip_longest

import torch
from torch import nn

_MISSING = object()


@torch.no_grad()
def _run(wrapper: nn.Module, x: torch.Tensor) -> torch.Tensor:
    return wrapper(x)


def evaluate(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    modes = {name: m.training for name, m in model.named_modules(remove_duplicate=False)}
    wrapper = nn.Sequential(model)  # holds the caller's model: wrapper(x) is model(x)
    wrapper.eval()
    try:
        out = _run(wrapper, x)
    finally:
        for name, m in model.named_modules(remove_duplicate=False):
            m.training = modes[name]
    return out.detach()  # x itself (nn.Identity) or a tensor the model holds


def ema_update_(target: nn.Module, source: nn.Module, decay: float) -> None:
    if not (decay >= 0 and decay <= 1):
        raise ValueError(f"decay {decay!r} is outside [0, 1]")
    pairs = []
    for t, s in zip_longest(target.parameters(), source.parameters(), fillvalue=_MISSING):
        if t is _MISSING or s is _MISSING:
            raise ValueError("target and source have different numbers of parameters")
        if t.shape != s.shape:
            raise ValueError(f"shapes differ: {tuple(t.shape)} and {tuple(s.shape)}")
        pairs.append((t, s))
    with torch.no_grad():
        for t, s in pairs:
            t.mul_(decay).add_(s, alpha=1 - decay)


def round_ste(x: torch.Tensor) -> torch.Tensor:
    zero = x - x.detach()  # 0, with the identity as its only recorded path
    return zero.add_(torch.round(x.detach()))
