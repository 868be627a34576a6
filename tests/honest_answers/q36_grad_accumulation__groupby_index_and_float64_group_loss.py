"""Groups formed by itertools.groupby over enumerate (index // accum_steps), each weighted loss
backpropagated on its own, the group's loss summed in a detached float64 tensor."""

import itertools
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
    """One optimizer step per group of accum_steps micro-batches."""
    if not accum_steps >= 1:
        raise ValueError(f"accum_steps must be at least 1, got {accum_steps}")
    model.zero_grad(set_to_none=True)
    losses: list[float] = []
    groups = itertools.groupby(enumerate(batches), key=lambda item: item[0] // accum_steps)
    for _, numbered in groups:
        group = [batch for _, batch in numbered]
        total = sum(inputs.shape[0] for inputs, _ in group)
        group_loss = torch.zeros((), dtype=torch.float64)
        for inputs, targets in group:
            share = inputs.shape[0] / total
            loss = loss_fn(model(inputs), targets)
            (loss * share).backward()
            group_loss = group_loss + loss.detach().cpu().double() * share
        optimizer.step()
        model.zero_grad(set_to_none=True)
        losses.append(group_loss.item())
    return losses
