"""Correct: each group's gradients are cleared right before its first backward (after that
micro-batch's forward), not after the step: no gradient carries over all the same."""

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
    if accum_steps < 1:
        raise ValueError(f"accum_steps must be >= 1, got {accum_steps}")
    if not batches:
        optimizer.zero_grad()
        return []
    losses = []
    for start in range(0, len(batches), accum_steps):
        group = batches[start : start + accum_steps]
        group_size = sum(inputs.shape[0] for inputs, _ in group)
        group_loss = 0.0
        for j, (inputs, targets) in enumerate(group):
            loss = loss_fn(model(inputs), targets) * (inputs.shape[0] / group_size)
            if j == 0:
                optimizer.zero_grad()  # the group starts from clean gradients
            loss.backward()
            group_loss += loss.item()
        optimizer.step()
        losses.append(group_loss)
    return losses
