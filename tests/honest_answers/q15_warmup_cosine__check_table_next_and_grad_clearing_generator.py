"""A check table scanned with next(), the decay clamped by min(progress, 1) instead of a third
branch, a lambda for LambdaLR, and the loop as a generator that clears .grad by hand."""

import math
from collections.abc import Callable, Iterable, Iterator

import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR, LRScheduler


def _check(step: int, warmup_steps: int, total_steps: int, min_factor: float) -> None:
    problems = (
        (step < 0, f"step must be >= 0, got {step}"),
        (warmup_steps < 0, f"warmup_steps must be >= 0, got {warmup_steps}"),
        (total_steps <= warmup_steps, "total_steps must be larger than warmup_steps"),
        (not 0.0 <= min_factor <= 1.0, f"min_factor must lie in [0, 1], got {min_factor}"),
    )
    message = next((text for bad, text in problems if bad), None)
    if message is not None:
        raise ValueError(message)


def warmup_cosine_factor(
    step: int, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> float:
    """The lr multiplier at scheduler step `step`."""
    _check(step, warmup_steps, total_steps, min_factor)
    if step < warmup_steps:
        return step / warmup_steps
    progress = min((step - warmup_steps) / (total_steps - warmup_steps), 1.0)
    return float(min_factor + (1.0 - min_factor) * 0.5 * (1.0 + math.cos(math.pi * progress)))


def warmup_cosine_scheduler(
    optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> LambdaLR:
    """A LambdaLR whose factor is warmup_cosine_factor; arguments checked first."""
    _check(0, warmup_steps, total_steps, min_factor)
    return LambdaLR(
        optimizer,
        lambda step: warmup_cosine_factor(step, warmup_steps, total_steps, min_factor),
    )


def _lrs(
    model: nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scheduler: LRScheduler,
) -> Iterator[float]:
    params = list(model.parameters())
    for inputs, targets in batches:
        for param in params:
            param.grad = None
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        lr = optimizer.param_groups[0]["lr"]
        used = lr.item() if isinstance(lr, torch.Tensor) else float(lr)
        optimizer.step()
        scheduler.step()
        yield used


def train_with_schedule(
    model: nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scheduler: LRScheduler,
) -> list[float]:
    """One optimizer step and one scheduler step per batch; the lr each step used."""
    return list(_lrs(model, batches, loss_fn, optimizer, scheduler))
