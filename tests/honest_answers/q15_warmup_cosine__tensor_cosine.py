"""The cosine computed as a float64 tensor and read back with float(); a nested lr_lambda."""

import math
from collections.abc import Callable, Iterable

import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR, LRScheduler


def _validate(warmup_steps: int, total_steps: int, min_factor: float) -> None:
    if warmup_steps < 0 or total_steps <= warmup_steps:
        raise ValueError(
            f"need 0 <= warmup_steps < total_steps, got {warmup_steps} and {total_steps}"
        )
    if math.isnan(min_factor) or min_factor < 0 or min_factor > 1:
        raise ValueError(f"min_factor must be in [0, 1], got {min_factor}")


def warmup_cosine_factor(
    step: int, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> float:
    if step < 0:
        raise ValueError(f"negative step {step}")
    _validate(warmup_steps, total_steps, min_factor)
    if step >= total_steps:
        return float(min_factor)
    if step < warmup_steps:
        return step / warmup_steps
    fraction = (step - warmup_steps) / (total_steps - warmup_steps)
    progress = torch.tensor(fraction, dtype=torch.float64)
    half_cosine = (1 + torch.cos(math.pi * progress)) / 2
    return float(min_factor + (1 - min_factor) * half_cosine)


def warmup_cosine_scheduler(
    optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> LambdaLR:
    _validate(warmup_steps, total_steps, min_factor)

    def lr_lambda(step: int) -> float:
        return warmup_cosine_factor(step, warmup_steps, total_steps, min_factor)

    return LambdaLR(optimizer, lr_lambda)


def train_with_schedule(
    model: nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scheduler: LRScheduler,
) -> list[float]:
    lrs: list[float] = []
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss_fn(model(inputs), targets).backward()
        lrs.append(float(optimizer.param_groups[0]["lr"]))
        optimizer.step()
        scheduler.step()
    return lrs
