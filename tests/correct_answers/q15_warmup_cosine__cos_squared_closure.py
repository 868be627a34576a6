"""Correct: cos^2 form, a closure for LambdaLR, model.zero_grad."""

import math
from collections.abc import Callable, Iterable

import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR, LRScheduler


def _validate(warmup_steps, total_steps, min_factor):
    if warmup_steps < 0:
        raise ValueError("warmup_steps < 0")
    if total_steps <= warmup_steps:
        raise ValueError("total_steps <= warmup_steps")
    if not (0.0 <= min_factor <= 1.0):
        raise ValueError("min_factor not in [0, 1]")


def warmup_cosine_factor(step, warmup_steps, total_steps, min_factor=0.0):
    _validate(warmup_steps, total_steps, min_factor)
    if step < 0:
        raise ValueError("step < 0")
    if step < warmup_steps:
        return float(step) / warmup_steps
    done = min(step, total_steps) - warmup_steps
    half_angle = math.pi * done / (total_steps - warmup_steps) / 2
    return float(min_factor + (1.0 - min_factor) * math.cos(half_angle) ** 2)


def warmup_cosine_scheduler(optimizer, warmup_steps, total_steps, min_factor=0.0):
    _validate(warmup_steps, total_steps, min_factor)

    def factor(step):
        return warmup_cosine_factor(step, warmup_steps, total_steps, min_factor)

    return LambdaLR(optimizer, factor)


def train_with_schedule(
    model: nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scheduler: LRScheduler,
) -> list[float]:
    used = []
    for inputs, targets in batches:
        optimizer.zero_grad(set_to_none=True)
        loss_fn(model(inputs), targets).backward()
        lr = optimizer.param_groups[0]["lr"]
        used.append(lr.item() if isinstance(lr, torch.Tensor) else float(lr))
        optimizer.step()
        scheduler.step()
    return used
