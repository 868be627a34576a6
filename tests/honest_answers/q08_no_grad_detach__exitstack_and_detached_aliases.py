"""An ExitStack of per-module flag restores; detached aliases updated in place instead of
no_grad for the EMA, shapes compared as lists; a clone whose detached alias is rounded in
place for the straight-through estimator."""

from contextlib import ExitStack

import torch
from torch import nn


def _set_own_mode(module: nn.Module, training: bool) -> None:
    # the flag alone, not train(): train() is recursive and would undo the children
    module.training = training


def evaluate(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    with ExitStack() as stack:
        for module in model.modules():
            stack.callback(_set_own_mode, module, module.training)
        stack.enter_context(torch.no_grad())
        model.train(False)
        out = model(x)
    return out.detach()


def ema_update_(target: nn.Module, source: nn.Module, decay: float) -> None:
    if not (decay >= 0.0 and decay <= 1.0):
        raise ValueError(f"decay {decay} is not in [0, 1]")
    targets, sources = list(target.parameters()), list(source.parameters())
    if [t.shape for t in targets] != [s.shape for s in sources]:
        raise ValueError("target and source parameters do not pair up by shape")
    for t, s in zip(targets, sources, strict=True):
        # a detached alias shares the parameter's storage and records nothing
        alias = t.detach()
        alias.mul_(decay).add_((1.0 - decay) * s.detach())


def round_ste(x: torch.Tensor) -> torch.Tensor:
    out = x.clone()  # recorded: the identity, and clone saves nothing for backward
    out.detach().round_()  # the values change, the graph does not see it
    return out
