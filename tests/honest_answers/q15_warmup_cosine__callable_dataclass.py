"""The factor as a frozen dataclass with __call__, checked in __post_init__; a step helper."""

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR, LRScheduler


@dataclass(frozen=True)
class _Schedule:
    warmup_steps: int
    total_steps: int
    min_factor: float = 0.0

    def __post_init__(self) -> None:
        if self.warmup_steps < 0:
            raise ValueError("warmup_steps must be >= 0")
        if self.total_steps <= self.warmup_steps:
            raise ValueError("total_steps must be > warmup_steps")
        if not 0.0 <= self.min_factor <= 1.0:
            raise ValueError("min_factor must be in [0, 1]")

    def __call__(self, step: int) -> float:
        if step < 0:
            raise ValueError("step must be >= 0")
        if step < self.warmup_steps:
            return step / self.warmup_steps
        if step > self.total_steps:
            return float(self.min_factor)
        progress = (step - self.warmup_steps) / (self.total_steps - self.warmup_steps)
        half_cosine = 0.5 * (1.0 + math.cos(math.pi * progress))
        return float(self.min_factor + (1.0 - self.min_factor) * half_cosine)


def warmup_cosine_factor(
    step: int, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> float:
    return _Schedule(warmup_steps, total_steps, min_factor)(step)


def warmup_cosine_scheduler(
    optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> LambdaLR:
    schedule = _Schedule(warmup_steps, total_steps, min_factor)  # raises before LambdaLR runs
    return LambdaLR(optimizer, lr_lambda=schedule)


def _train_step(model, inputs, targets, loss_fn, optimizer, scheduler) -> float:
    model.zero_grad(set_to_none=True)
    loss_fn(model(inputs), targets).backward()
    used = float(optimizer.param_groups[0]["lr"])
    optimizer.step()
    scheduler.step()
    return used


def train_with_schedule(
    model: nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scheduler: LRScheduler,
) -> list[float]:
    return [_train_step(model, x, y, loss_fn, optimizer, scheduler) for x, y in batches]
