"""Batches moved with non_blocking=True, trainable gradients zeroed in place (a frozen
one's set to None), the loss read through loss.detach().item(), and the epoch kept as a
small accumulator object."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class _Accumulator:
    weighted: float = 0.0
    samples: int = 0

    def add(self, value: float, count: int) -> None:
        if count == 0:
            return
        self.weighted += value * count
        self.samples += count

    def mean(self) -> float:
        if self.samples == 0:
            raise ValueError("train_epoch got no samples")
        return self.weighted / self.samples


def train_epoch(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    device: torch.device,
) -> float:
    model.train()
    acc = _Accumulator()
    for batch in loader:
        inputs = batch[0].to(device, non_blocking=True)
        targets = batch[1].to(device, non_blocking=True)
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.requires_grad and param.grad is not None:
                    param.grad.zero_()
                else:
                    param.grad = None  # a frozen one's zero .grad would still be stepped
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        acc.add(loss.detach().item(), inputs.size(0))
    return acc.mean()
