"""Wrong: the scheduler's min_factor defaults to 0.1 instead of 0.0."""

from functools import partial

import torch
from torch.optim.lr_scheduler import LambdaLR

from solutions.q15_warmup_cosine import (  # the rest as in the reference
    _check,
    train_with_schedule,
    warmup_cosine_factor,
)


def warmup_cosine_scheduler(
    optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_factor: float = 0.1
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
