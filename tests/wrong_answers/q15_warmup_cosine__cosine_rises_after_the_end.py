"""Wrong: does not clamp the progress, so after total_steps the cosine climbs back up."""

import math

from torch.optim.lr_scheduler import LambdaLR

from solutions.q15_warmup_cosine import train_with_schedule  # the rest as in the reference


def warmup_cosine_factor(step, warmup_steps, total_steps, min_factor=0.0):
    if step < 0 or warmup_steps < 0 or total_steps <= warmup_steps or not 0 <= min_factor <= 1:
        raise ValueError("bad schedule arguments")
    if step < warmup_steps:
        return step / warmup_steps
    progress = (step - warmup_steps) / (total_steps - warmup_steps)
    return min_factor + (1.0 - min_factor) * 0.5 * (1.0 + math.cos(math.pi * progress))


def warmup_cosine_scheduler(optimizer, warmup_steps, total_steps, min_factor=0.0):
    warmup_cosine_factor(0, warmup_steps, total_steps, min_factor)
    return LambdaLR(
        optimizer, lambda step: warmup_cosine_factor(step, warmup_steps, total_steps, min_factor)
    )
