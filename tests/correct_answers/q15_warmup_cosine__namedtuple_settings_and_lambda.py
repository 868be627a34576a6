"""Settings checked by a NamedTuple classmethod, phases by early returns, a lambda."""

import math
from collections.abc import Callable, Iterable
from typing import NamedTuple

import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR, LRScheduler


class Schedule(NamedTuple):
    warmup: int
    total: int
    floor: float

    @classmethod
    def checked(cls, warmup: int, total: int, floor: float) -> "Schedule":
        if warmup < 0:
            raise ValueError(f"warmup_steps must be >= 0, got {warmup}")
        if total <= warmup:
            raise ValueError(f"total_steps ({total}) must exceed warmup_steps ({warmup})")
        if not 0.0 <= floor <= 1.0:  # False for NaN too
            raise ValueError(f"min_factor must be in [0, 1], got {floor}")
        return cls(warmup, total, floor)

    def at(self, step: int) -> float:
        if step < 0:
            raise ValueError(f"step must be >= 0, got {step}")
        if step < self.warmup:
            return step / self.warmup
        if step > self.total:
            return float(self.floor)
        progress = (step - self.warmup) / (self.total - self.warmup)
        return self.floor + (1.0 - self.floor) * 0.5 * (1.0 + math.cos(math.pi * progress))


def warmup_cosine_factor(
    step: int, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> float:
    return Schedule.checked(warmup_steps, total_steps, min_factor).at(step)


def warmup_cosine_scheduler(
    optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> LambdaLR:
    schedule = Schedule.checked(warmup_steps, total_steps, min_factor)
    return LambdaLR(optimizer, lr_lambda=lambda step: schedule.at(step))


def train_with_schedule(
    model: nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scheduler: LRScheduler,
) -> list[float]:
    used: list[float] = []
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss_fn(model(inputs), targets).backward()
        used.append(float(optimizer.param_groups[0]["lr"]))
        optimizer.step()
        scheduler.step()
    return used
