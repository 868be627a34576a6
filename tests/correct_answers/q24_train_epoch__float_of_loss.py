"""Correct: float(loss) on the loss itself, torch.autograd.backward, a generator expression."""

from collections.abc import Callable, Iterable

import torch
from torch import nn


def train_epoch(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    device: torch.device,
) -> float:
    """Run one pass over `loader`, one optimizer step per batch, and return the mean loss."""
    model.train()
    total, count = 0.0, 0
    for batch in loader:
        inputs, targets = (t.to(device) for t in batch)
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        torch.autograd.backward(loss)
        optimizer.step()
        value = float(loss)
        n = len(inputs)
        total += value * n
        count += n
    if count == 0:
        raise ValueError("empty loader: no samples")
    return total / count
