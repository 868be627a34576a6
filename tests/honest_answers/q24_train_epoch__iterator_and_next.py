"""Drives the loader by hand with iter() and next(), clears gradients with
model.zero_grad(set_to_none=True), and keeps the weighted sum and the sample count in two
plain Python numbers."""

from collections.abc import Callable, Iterable

import torch
from torch import nn


def _one_step(
    model: nn.Module,
    batch: tuple[torch.Tensor, torch.Tensor],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    device: torch.device,
) -> tuple[float, int]:
    inputs, targets = batch
    inputs = inputs.to(device)
    targets = targets.to(device)
    model.zero_grad(set_to_none=True)
    loss = loss_fn(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss.item(), int(inputs.shape[0])


def train_epoch(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    device: torch.device,
) -> float:
    model.train(mode=True)
    weighted_sum = 0.0
    seen = 0
    batches = iter(loader)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            break
        value, count = _one_step(model, batch, loss_fn, optimizer, device)
        if count:  # an empty batch's nan loss is left out of the mean
            weighted_sum += value * count
            seen += count
    if seen == 0:
        raise ValueError("the loader yielded no sample")
    return weighted_sum / seen
