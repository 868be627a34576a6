"""Groups taken with itertools.islice over an iterator; each micro-batch's share applied as
the gradient argument of backward() instead of multiplying the loss; model.zero_grad()
before every group (to zeros; the gradients from before the call to None)."""

from collections.abc import Callable, Sequence
from itertools import islice

import torch
import torch.nn.functional as F
from torch import nn


def train_accumulated(
    model: nn.Module,
    batches: Sequence[tuple[torch.Tensor, torch.Tensor]],
    optimizer: torch.optim.Optimizer,
    accum_steps: int,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] = F.mse_loss,
) -> list[float]:
    if accum_steps < 1 or accum_steps != accum_steps:
        raise ValueError("accum_steps must be a positive integer")
    remaining = iter(batches)
    history: list[float] = []
    model.zero_grad()  # None, not zeros: a frozen layer's old .grad would still be stepped
    while group := list(islice(remaining, int(accum_steps))):
        model.zero_grad(set_to_none=False)
        n_total = sum(x.shape[0] for x, _ in group)
        value = 0.0
        for x, y in group:
            loss = loss_fn(model(x), y)
            share = x.shape[0] / n_total
            loss.backward(gradient=torch.full_like(loss, share))
            value += loss.item() * share
        optimizer.step()
        history.append(value)
    return history
