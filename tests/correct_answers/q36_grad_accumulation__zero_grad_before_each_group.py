"""Correct: zero_grad before each group instead of after each step (the last gradients stay)."""

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
    losses = []
    optimizer.zero_grad()  # stale gradients from before the call must not leak in
    for start in range(0, len(batches), accum_steps):
        group = batches[start : start + accum_steps]  # the last one may be shorter
        group_size = sum(inputs.shape[0] for inputs, _ in group)
        group_loss = 0.0
        optimizer.zero_grad()  # before each group instead of after each step
        for inputs, targets in group:
            # A mean over N samples is the sum of the micro-batch means weighted by n_i / N;
            # dividing by accum_steps is only right when every micro-batch is the same size
            # and the group is full.
            loss = loss_fn(model(inputs), targets) * (inputs.shape[0] / group_size)
            loss.backward()  # adds into .grad and frees this micro-batch's graph
            group_loss = group_loss + loss.detach()  # no sync with the device per micro-batch
        optimizer.step()
        losses.append(float(group_loss))
    return losses
