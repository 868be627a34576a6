"""A helper for one step; per-batch (loss, size) records combined with math.fsum."""

import math
from collections.abc import Callable, Iterable

import torch
from torch import nn


def _one_step(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
) -> float:
    optimizer.zero_grad(set_to_none=True)
    loss = loss_fn(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss.item()


def train_epoch(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    device: torch.device,
) -> float:
    model.train()
    records: list[tuple[float, int]] = []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        loss = _one_step(model, inputs, targets, loss_fn, optimizer)
        records.append((loss, int(inputs.shape[0])))

    samples = sum(size for _, size in records)
    if samples == 0:
        raise ValueError("the loader yielded no sample")
    # batches of 0 samples carry a nan mean over nothing: leave them out
    return math.fsum(loss * size for loss, size in records if size) / samples
