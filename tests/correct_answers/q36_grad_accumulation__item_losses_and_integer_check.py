"""Correct: refuses every non-integer accum_steps (1.5 and NaN too), adds up the group's loss
with .item(), and clears the gradients with model.zero_grad(); the loss_fn default is None,
read as F.mse_loss."""

import math
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import nn


def train_accumulated(
    model: nn.Module,
    batches: Sequence[tuple[torch.Tensor, torch.Tensor]],
    optimizer: torch.optim.Optimizer,
    accum_steps: int,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] | None = None,
) -> list[float]:
    if math.isnan(accum_steps) or accum_steps != int(accum_steps) or accum_steps < 1:
        raise ValueError(f"accum_steps must be an integer >= 1, got {accum_steps}")
    loss_fn = F.mse_loss if loss_fn is None else loss_fn
    accum_steps = int(accum_steps)
    model.zero_grad(set_to_none=True)
    losses = []
    for start in range(0, len(batches), accum_steps):
        group = batches[start : start + accum_steps]
        total = sum(len(inputs) for inputs, _ in group)
        group_loss = 0.0
        for inputs, targets in group:
            loss = loss_fn(model(inputs), targets) * len(inputs) / total
            loss.backward()
            group_loss += loss.item()
        optimizer.step()
        model.zero_grad(set_to_none=True)
        losses.append(group_loss)
    return losses
