"""Wrong: moves the inputs to the device but not the targets, so the loss meets a CPU tensor."""

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
    model.train()  # dropout and batch norm in their training behaviour
    total_loss, total_samples = 0.0, 0
    for inputs, targets in loader:
        inputs = inputs.to(device)
        optimizer.zero_grad()  # backward() accumulates: start each batch from zero
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        # loss is a batch mean; weight it by the batch size so a short last batch
        # counts for its samples only. .item() also drops the graph.
        total_loss += loss.item() * inputs.shape[0]
        total_samples += inputs.shape[0]
    if total_samples == 0:
        raise ValueError("the loader yielded no batch")
    return total_loss / total_samples
