"""The step clamped at total_steps before the cosine, the lambda bound with functools.partial."""

import functools
import math
from collections.abc import Callable, Iterable

import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR, LRScheduler


def _check(warmup_steps: int, total_steps: int, min_factor: float) -> None:
    if warmup_steps < 0:
        raise ValueError(f"warmup_steps must be >= 0, got {warmup_steps}")
    if total_steps <= warmup_steps:
        raise ValueError("total_steps must exceed warmup_steps")
    if not 0.0 <= min_factor <= 1.0:  # False for NaN as well
        raise ValueError(f"min_factor must lie in [0, 1], got {min_factor}")


def warmup_cosine_factor(
    step: int, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> float:
    if step < 0:
        raise ValueError(f"step must be >= 0, got {step}")
    _check(warmup_steps, total_steps, min_factor)
    if step < warmup_steps:
        return float(step) / float(warmup_steps)
    clamped = min(step, total_steps)
    progress = (clamped - warmup_steps) / (total_steps - warmup_steps)
    cosine = 0.5 * (1.0 + math.cos(math.pi * progress))
    return float(min_factor + (1.0 - min_factor) * cosine)


def warmup_cosine_scheduler(
    optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> LambdaLR:
    _check(warmup_steps, total_steps, min_factor)
    factor: Callable[[int], float] = functools.partial(
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
    used: list[float] = []
    for inputs, targets in batches:
        model.zero_grad(set_to_none=True)
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        lr = optimizer.param_groups[0]["lr"]
        used.append(lr.item() if isinstance(lr, torch.Tensor) else float(lr))
        optimizer.step()
        scheduler.step()
    return used
