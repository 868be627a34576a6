"""Backward on each micro-batch's summed loss (mean times its size), then every gradient
divided by the group's sample count just before the step: the same gradient as the
weighted means, scaled once at the end."""

from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import nn


def _grads(optimizer: torch.optim.Optimizer) -> list[torch.Tensor]:
    return [p.grad for g in optimizer.param_groups for p in g["params"] if p.grad is not None]


def train_accumulated(
    model: nn.Module,
    batches: Sequence[tuple[torch.Tensor, torch.Tensor]],
    optimizer: torch.optim.Optimizer,
    accum_steps: int,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] = F.mse_loss,
) -> list[float]:
    if not (accum_steps >= 1):
        raise ValueError("accum_steps < 1")
    step = int(accum_steps)
    out: list[float] = []
    for lo in range(0, len(batches), step):
        optimizer.zero_grad(set_to_none=True)
        group = batches[lo : lo + step]
        count = 0
        summed = 0.0
        for inputs, targets in group:
            n = inputs.shape[0]
            loss_sum = loss_fn(model(inputs), targets) * n
            loss_sum.backward()
            summed += loss_sum.item()
            count += n
        with torch.no_grad():
            for g in _grads(optimizer):
                g.div_(count)
        optimizer.step()
        out.append(summed / count)
    optimizer.zero_grad(set_to_none=True)
    return out
