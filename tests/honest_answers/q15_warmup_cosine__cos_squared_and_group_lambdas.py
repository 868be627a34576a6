"""The decay written as cos^2(pi * progress / 2), an if/elif chain and a list of per-group
lambdas for LambdaLR; the loop walks the batches with an explicit iterator and next()."""

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
        raise ValueError("total_steps must be greater than warmup_steps")
    if math.isnan(min_factor) or min_factor < 0 or min_factor > 1:
        raise ValueError("min_factor must lie in [0, 1]")
    if step < warmup_steps:
        return step / warmup_steps
    elif step <= total_steps:
        half_angle = math.pi * (step - warmup_steps) / (total_steps - warmup_steps) / 2
        # (1 + cos(2a)) / 2 == cos(a) ** 2
        return min_factor + (1 - min_factor) * math.cos(half_angle) ** 2
    else:
        return min_factor + 0.0


def warmup_cosine_scheduler(
    optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> LambdaLR:
    warmup_cosine_factor(0, warmup_steps, total_steps, min_factor)  # raises before LambdaLR
    lambdas = [
        lambda step: warmup_cosine_factor(step, warmup_steps, total_steps, min_factor)
        for _ in optimizer.param_groups
    ]
    return LambdaLR(optimizer, lr_lambda=lambdas)


def train_with_schedule(
    model: nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scheduler: LRScheduler,
) -> list[float]:
    lrs = []
    it = iter(batches)
    while (batch := next(it, None)) is not None:
        inputs, targets = batch
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        lr = optimizer.param_groups[0]["lr"]
        lrs.append(lr.item() if isinstance(lr, torch.Tensor) else float(lr))
        optimizer.step()
        scheduler.step()
    return lrs
