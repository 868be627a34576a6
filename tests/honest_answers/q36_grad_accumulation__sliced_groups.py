"""Groups of micro-batches by slicing, losses weighted by share, a logger for the groups."""

import logging
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import nn

_log = logging.getLogger(__name__)


def train_accumulated(
    model: nn.Module,
    batches: Sequence[tuple[torch.Tensor, torch.Tensor]],
    optimizer: torch.optim.Optimizer,
    accum_steps: int,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] = F.mse_loss,
) -> list[float]:
    if accum_steps < 1:
        raise ValueError("accum_steps must be at least 1")
    optimizer.zero_grad(set_to_none=True)
    groups = [batches[i : i + accum_steps] for i in range(0, len(batches), accum_steps)]
    history = []
    for group in groups:
        total = sum(len(inputs) for inputs, _ in group)
        running = torch.zeros(())
        for inputs, targets in group:
            share = len(inputs) / total
            loss = loss_fn(model(inputs), targets) * share
            loss.backward()
            running = running + loss.detach().cpu()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        history.append(running.item())
        _log.info("group of %d samples: loss %.5f", total, history[-1])
    return history
