"""The model run inside an nn.Sequential wrapper (train() set on the wrapper), a generator of
per-batch (loss, size) records, torch.autograd.backward and model.zero_grad()."""

from collections.abc import Callable, Iterable, Iterator

import torch
from torch import nn


def _steps(
    net: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    device: torch.device,
) -> Iterator[tuple[float, int]]:
    for inputs, targets in loader:
        inputs = inputs.to(device=device)
        targets = targets.to(device=device)
        net.zero_grad()
        loss = loss_fn(net(inputs), targets)
        torch.autograd.backward(loss)
        optimizer.step()
        yield loss.item(), int(inputs.shape[0])


def train_epoch(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    device: torch.device,
) -> float:
    net = nn.Sequential(model)  # net(x) is model(x); net.train() reaches every submodule
    net.train()
    records = [(loss, n) for loss, n in _steps(net, loader, loss_fn, optimizer, device) if n]
    samples = sum(n for _, n in records)
    if not samples:
        raise ValueError("no samples: the loader is empty or yields only empty batches")
    return sum(loss * n for loss, n in records) / samples
