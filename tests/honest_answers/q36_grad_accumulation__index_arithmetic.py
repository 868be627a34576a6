"""Walks the micro-batches with one index, working out each group's bounds and sample count
with integer arithmetic, and steps when an index closes its group; gradients are cleared
with optimizer.zero_grad() before every group."""

from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import nn


def train_accumulated(
    model: nn.Module,
    batches: Sequence[tuple[torch.Tensor, torch.Tensor]],
    optimizer: torch.optim.Optimizer,
    accum_steps: int,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] = F.mse_loss,
) -> list[float]:
    if not accum_steps >= 1:
        raise ValueError(f"accum_steps must be at least 1, got {accum_steps}")
    k = int(accum_steps)
    total = len(batches)
    losses: list[float] = []
    optimizer.zero_grad(set_to_none=True)
    group_loss = 0.0
    group_size = 0
    for i in range(total):
        start = (i // k) * k
        if i == start:
            stop = min(start + k, total)
            group_size = sum(int(batches[j][0].shape[0]) for j in range(start, stop))
            group_loss = 0.0
        inputs, targets = batches[i]
        share = inputs.shape[0] / group_size
        weighted = loss_fn(model(inputs), targets) * share
        weighted.backward()
        group_loss += weighted.item()
        if i + 1 == total or (i + 1) % k == 0:
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            losses.append(group_loss)
    return losses
