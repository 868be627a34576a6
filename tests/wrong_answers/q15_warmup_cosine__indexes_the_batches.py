"""Wrong: walks the batches by index, so an iterable without len() (a generator) fails."""

from collections.abc import Callable, Iterable

import torch
from torch import nn
from torch.optim.lr_scheduler import LRScheduler

from solutions.q15_warmup_cosine import (  # the rest as in the reference
    warmup_cosine_factor,
    warmup_cosine_scheduler,
)


def train_with_schedule(
    model: nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scheduler: LRScheduler,
) -> list[float]:
    lrs = []
    for index in range(len(batches)):
        inputs, targets = batches[index]
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        lrs.append(float(optimizer.param_groups[0]["lr"]))  # the lr this step will use
        optimizer.step()
        scheduler.step()  # after optimizer.step(): the next batch gets the next lr
    return lrs
