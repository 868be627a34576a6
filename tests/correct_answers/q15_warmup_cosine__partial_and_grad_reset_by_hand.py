"""Correct: the factor as phases with early returns, the scheduler's lambda a functools.partial
validated by calling it once, and the loop resetting each .grad to None by hand."""

import functools
import math
from collections.abc import Callable, Iterable

import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR, LRScheduler


def warmup_cosine_factor(
    step: int, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> float:
    if step < 0 or warmup_steps < 0:
        raise ValueError("step and warmup_steps must be >= 0")
    if total_steps <= warmup_steps:
        raise ValueError("total_steps must be larger than warmup_steps")
    if not 0.0 <= min_factor <= 1.0:
        raise ValueError(f"min_factor must be in [0, 1], got {min_factor}")
    if step < warmup_steps:
        return step / warmup_steps
    if step > total_steps:
        return float(min_factor)
    progress = (step - warmup_steps) / (total_steps - warmup_steps)
    return min_factor + (1.0 - min_factor) * 0.5 * (1.0 + math.cos(math.pi * progress))


def warmup_cosine_scheduler(
    optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> LambdaLR:
    factor = functools.partial(
        warmup_cosine_factor,
        warmup_steps=warmup_steps,
        total_steps=total_steps,
        min_factor=min_factor,
    )
    factor(0)  # raises on bad settings before LambdaLR touches the optimizer
    return LambdaLR(optimizer, factor)


def train_with_schedule(
    model: nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scheduler: LRScheduler,
) -> list[float]:
    used: list[float] = []
    for inputs, targets in batches:
        for group in optimizer.param_groups:
            for param in group["params"]:
                param.grad = None
        loss_fn(model(inputs), targets).backward()
        used.append(float(optimizer.param_groups[0]["lr"]))
        optimizer.step()
        scheduler.step()
    return used
