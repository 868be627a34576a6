"""Wrong: ema_update_ assigns new nn.Parameter objects instead of updating in place."""

import torch
from torch import nn

from solutions.q08_no_grad_detach import evaluate, round_ste  # the rest as in the reference


def ema_update_(target, source, decay):
    if not 0.0 <= decay <= 1.0:
        raise ValueError("decay must be in [0, 1]")
    sources = dict(source.named_parameters())
    targets = dict(target.named_parameters())
    if targets.keys() != sources.keys() or any(
        targets[k].shape != sources[k].shape for k in targets
    ):
        raise ValueError("target and source do not match")
    with torch.no_grad():
        for name, t in targets.items():
            owner = target.get_submodule(name.rpartition(".")[0])
            value = decay * t + (1 - decay) * sources[name]
            setattr(owner, name.rpartition(".")[2], nn.Parameter(value, t.requires_grad))
