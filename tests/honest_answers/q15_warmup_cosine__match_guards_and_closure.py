"""Phases picked by a match statement on guards; the scheduler validates by calling the factor
once, then gives LambdaLR a closure; the loop records the lr right after optimizer.step()."""

import math
from collections.abc import Callable, Iterable

import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR, LRScheduler


def _check(step: int, warmup_steps: int, total_steps: int, min_factor: float) -> None:
    problems = []
    if step < 0:
        problems.append(f"step={step} is negative")
    if warmup_steps < 0:
        problems.append(f"warmup_steps={warmup_steps} is negative")
    if total_steps <= warmup_steps:
        problems.append(f"total_steps={total_steps} must exceed warmup_steps={warmup_steps}")
    if not (0.0 <= min_factor <= 1.0):
        problems.append(f"min_factor={min_factor} is outside [0, 1]")
    if problems:
        raise ValueError("; ".join(problems))


def warmup_cosine_factor(
    step: int, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> float:
    _check(step, warmup_steps, total_steps, min_factor)
    match step:
        case s if s < warmup_steps:
            return s / warmup_steps
        case s if s > total_steps:
            return float(min_factor)
        case s:
            progress = (s - warmup_steps) / (total_steps - warmup_steps)
            return min_factor + (1.0 - min_factor) * 0.5 * (1.0 + math.cos(math.pi * progress))


def warmup_cosine_scheduler(
    optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> LambdaLR:
    _check(0, warmup_steps, total_steps, min_factor)

    def factor(step: int) -> float:
        return warmup_cosine_factor(step, warmup_steps, total_steps, min_factor)

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
        loss_fn(model(inputs), targets).backward()
        optimizer.step()
        used.append(float(optimizer.param_groups[0]["lr"]))
        scheduler.step()
    return used
