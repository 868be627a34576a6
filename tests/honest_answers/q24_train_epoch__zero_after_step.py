"""Gradients cleared once before the loop and again after every step (optimizer.zero_grad),
training mode set with model.apply, each batch unpacked in the for statement and counted
with len()."""

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
    model.apply(lambda module: module.train())
    total_loss, total_samples, batches = 0.0, 0, 0
    optimizer.zero_grad()
    for inputs, targets in loader:
        batches += 1
        inputs, targets = inputs.to(device), targets.to(device)
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        size = len(inputs)
        if size > 0:
            total_loss += float(loss) * size
            total_samples += size
    if total_samples == 0:
        raise ValueError(f"no samples in {batches} batches")
    return total_loss / total_samples
