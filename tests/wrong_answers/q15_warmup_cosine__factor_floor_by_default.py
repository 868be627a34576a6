"""Wrong: the factor's min_factor defaults to 0.1 instead of 0.0."""

import math
from functools import partial

import torch
from torch.optim.lr_scheduler import LambdaLR

from solutions.q15_warmup_cosine import _check, train_with_schedule  # the rest as in the reference


def warmup_cosine_factor(
    step: int, warmup_steps: int, total_steps: int, min_factor: float = 0.1
) -> float:
    _check(warmup_steps, total_steps, min_factor)
    if step < 0:
        raise ValueError(f"step must be >= 0, got {step}")
    if step < warmup_steps:
        return step / warmup_steps
    # Clamp progress at 1 so the cosine stays at its floor after the schedule ends.
    progress = min(1.0, (step - warmup_steps) / (total_steps - warmup_steps))
    return min_factor + (1.0 - min_factor) * 0.5 * (1.0 + math.cos(math.pi * progress))


def warmup_cosine_scheduler(
    optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> LambdaLR:
    # Validate before LambdaLR touches the optimizer's lrs.
    _check(warmup_steps, total_steps, min_factor)
    factor = partial(
        warmup_cosine_factor,
        warmup_steps=warmup_steps,
        total_steps=total_steps,
        min_factor=min_factor,
    )
    return LambdaLR(optimizer, lr_lambda=factor)
