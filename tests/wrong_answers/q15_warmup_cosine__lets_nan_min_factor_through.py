"""Wrong: checks min_factor < 0 or min_factor > 1, which a NaN min_factor passes."""

import math

from torch.optim.lr_scheduler import LambdaLR

from solutions.q15_warmup_cosine import train_with_schedule


def _check(warmup_steps, total_steps, min_factor):
    if warmup_steps < 0 or total_steps <= warmup_steps:
        raise ValueError(f"need 0 <= warmup_steps < total_steps, got {warmup_steps}, {total_steps}")
    if min_factor < 0 or min_factor > 1:
        raise ValueError(f"min_factor must be in [0, 1], got {min_factor}")


def warmup_cosine_factor(step, warmup_steps, total_steps, min_factor=0.0):
    _check(warmup_steps, total_steps, min_factor)
    if step < 0:
        raise ValueError(f"step must be >= 0, got {step}")
    if step < warmup_steps:
        return step / warmup_steps
    progress = min(1.0, (step - warmup_steps) / (total_steps - warmup_steps))
    return min_factor + (1.0 - min_factor) * 0.5 * (1.0 + math.cos(math.pi * progress))


def warmup_cosine_scheduler(optimizer, warmup_steps, total_steps, min_factor=0.0):
    _check(warmup_steps, total_steps, min_factor)
    return LambdaLR(
        optimizer, lambda step: warmup_cosine_factor(step, warmup_steps, total_steps, min_factor)
    )
