"""Functional torch.autograd.backward, gradients cleared by hand to None, tolist() for the
number, and statistics.fmean weighted by batch size (its StatisticsError is a ValueError)."""

import statistics
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
    model.train(mode=True)
    losses: list[float] = []
    sizes: list[int] = []
    for inputs, targets in loader:
        x, y = inputs.to(device), targets.to(device)
        for param in model.parameters():
            param.grad = None  # what model.zero_grad() does by default
        loss = loss_fn(model(x), y)
        torch.autograd.backward(loss)
        optimizer.step()
        losses.append(loss.detach().cpu().tolist())  # a 0-dim tensor's tolist is a number
        sizes.append(x.size(0))
    try:
        return statistics.fmean(losses, weights=sizes)
    except statistics.StatisticsError as err:  # no batch, or every weight 0
        raise statistics.StatisticsError(f"the loader yielded no sample: {err}") from None
