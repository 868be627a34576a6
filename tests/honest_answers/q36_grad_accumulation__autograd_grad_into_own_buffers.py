"""Gradients accumulated by hand: torch.autograd.grad per micro-batch, weighted and added into
a list of tensors of our own, assigned to .grad just before each step."""

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
        raise ValueError(f"accum_steps must be at least 1, got {accum_steps}")
    params = list(model.parameters())
    for p in params:
        p.grad = None  # whatever was there, NaN included, is gone
    trainable = [p for p in params if p.requires_grad]
    losses = []
    for start in range(0, len(batches), accum_steps):
        group = batches[start : start + accum_steps]
        total = sum(inputs.shape[0] for inputs, _ in group)
        summed: list[torch.Tensor | None] = [None] * len(trainable)
        group_loss = 0.0
        for inputs, targets in group:
            loss = loss_fn(model(inputs), targets)
            share = inputs.shape[0] / total
            group_loss += loss.item() * share
            if trainable and loss.requires_grad:
                grads = torch.autograd.grad(loss * share, trainable, allow_unused=True)
                for i, g in enumerate(grads):
                    if g is not None:
                        summed[i] = g if summed[i] is None else summed[i] + g
        for p, g in zip(trainable, summed, strict=True):
            p.grad = g
        optimizer.step()
        losses.append(group_loss)
    return losses
