"""The factor with numpy (np.cos, np.clip on the progress, np.interp for the warmup line) and
returned as a Python float; a nested function for LambdaLR; optimizer.zero_grad() and
torch.autograd.backward in the loop, the lr read through a float64 torch.as_tensor(...).item()."""

import math
from collections.abc import Callable, Iterable

import numpy as np
import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR, LRScheduler


def warmup_cosine_factor(
    step: int, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> float:
    """The lr multiplier at scheduler step `step`."""
    if step < 0 or warmup_steps < 0:
        raise ValueError("step and warmup_steps must not be negative")
    if total_steps <= warmup_steps:
        raise ValueError("total_steps must exceed warmup_steps")
    if math.isnan(min_factor) or not 0 <= min_factor <= 1:
        raise ValueError(f"min_factor must lie in [0, 1], got {min_factor}")
    if step < warmup_steps:
        return float(np.interp(step, [0, warmup_steps], [0.0, 1.0]))
    progress = np.clip((step - warmup_steps) / (total_steps - warmup_steps), 0.0, 1.0)
    return float(min_factor + (1 - min_factor) * (1 + np.cos(np.pi * progress)) / 2)


def warmup_cosine_scheduler(
    optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> LambdaLR:
    """LambdaLR over warmup_cosine_factor, the settings checked before it is built."""
    warmup_cosine_factor(0, warmup_steps, total_steps, min_factor)

    def factor(step: int) -> float:
        return warmup_cosine_factor(step, warmup_steps, total_steps, min_factor)

    return LambdaLR(optimizer, factor)


def train_with_schedule(
    model: nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scheduler: LRScheduler,
) -> list[float]:
    """Zero, forward, backward, optimizer step, scheduler step; the lr of each step."""
    used: list[float] = []
    for inputs, targets in batches:
        optimizer.zero_grad()
        torch.autograd.backward(loss_fn(model(inputs), targets))
        used.append(torch.as_tensor(optimizer.param_groups[0]["lr"], dtype=torch.float64).item())
        optimizer.step()
        scheduler.step()
    return used
