"""A small meter class with __float__ and __len__, a zip over the batch, warnings for none."""

from collections.abc import Callable, Iterable

import torch
from torch import nn


class _Meter:
    def __init__(self) -> None:
        self.total = 0.0
        self.count = 0

    def add(self, value: float, count: int) -> None:
        self.total += value * count
        self.count += count

    def __len__(self) -> int:
        return self.count

    def __float__(self) -> float:
        return self.total / self.count

    def __repr__(self) -> str:
        return f"_Meter(mean={float(self) if self.count else float('nan'):.4f})"


def train_epoch(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    device: torch.device,
) -> float:
    model.train(True)
    meter = _Meter()
    for batch in loader:
        inputs, targets = (part.to(device) for part in batch)
        for p in model.parameters():
            p.grad = None
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        meter.add(loss.detach().item(), len(inputs))
    if not len(meter):
        raise ValueError("empty loader")
    return float(meter)
