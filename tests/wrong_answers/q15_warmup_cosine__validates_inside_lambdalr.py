"""Wrong: leaves the checks to the factor, which LambdaLR first calls after adding
'initial_lr' to every param group, so a rejected call has changed the optimizer."""

from functools import partial

import torch
from torch.optim.lr_scheduler import LambdaLR

from solutions.q15_warmup_cosine import (  # the rest as in the reference
    train_with_schedule,
    warmup_cosine_factor,
)


def warmup_cosine_scheduler(
    optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> LambdaLR:
    factor = partial(
        warmup_cosine_factor,
        warmup_steps=warmup_steps,
        total_steps=total_steps,
        min_factor=min_factor,
    )
    return LambdaLR(optimizer, lr_lambda=factor)
