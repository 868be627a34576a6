"""Wrong: the scheduler's min_factor defaults to 0.1 instead of 0.0."""

import math
from collections.abc import Callable, Iterable
from functools import partial

import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR, LRScheduler


def _check(warmup_steps: int, total_steps: int, min_factor: float) -> None:
    if warmup_steps < 0 or total_steps <= warmup_steps:
        raise ValueError(f"need 0 <= warmup_steps < total_steps, got {warmup_steps}, {total_steps}")
    if not 0.0 <= min_factor <= 1.0:
        raise ValueError(f"min_factor must be in [0, 1], got {min_factor}")


def warmup_cosine_factor(
    step: int, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> float:
    _check(warmup_steps, total_steps, min_factor)
    if step < 0:
        raise ValueError(f"step must be >= 0, got {step}")
    if step < warmup_steps:
        return step / warmup_steps
    # Clamp progress at 1 so the cosine stays at its floor after the schedule ends.
    progress = min(1.0, (step - warmup_steps) / (total_steps - warmup_steps))
    return min_factor + (1.0 - min_factor) * 0.5 * (1.0 + math.cos(math.pi * progress))


def warmup_cosine_scheduler(
    optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_factor: float = 0.1
) -> LambdaLR:
    # Validate before LambdaLR touches the optimizer's lrs.
    _check(warmup_steps, total_steps, min_factor)
    factor = partial(
        warmup_cosine_factor,
        warmup_steps=warmup_steps,
        total_steps=total_steps,
        min_factor=min_factor,
    )
    return LambdaLR(optimizer, lr_lambda=factor)


def train_with_schedule(
    model: nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scheduler: LRScheduler,
) -> list[float]:
    lrs = []
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        lrs.append(float(optimizer.param_groups[0]["lr"]))  # the lr this step will use
        optimizer.step()
        scheduler.step()  # after optimizer.step(): the next batch gets the next lr
    return lrs
