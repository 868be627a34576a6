"""The factor as a module-level pure function, settings validated in one expression."""

import math

import torch
from torch.optim.lr_scheduler import LRScheduler


def _factor(t: int, warmup: int, step_size: int, gamma: float, start: float) -> float:
    if t < warmup:
        return start + (1.0 - start) * t / warmup
    return gamma ** ((t - warmup) // step_size)


class WarmupStepLR(LRScheduler):
    def __init__(
        self,
        optimizer: torch.optim.Optimizer,
        warmup_steps: int,
        step_size: int,
        gamma: float = 0.1,
        start_factor: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        counts_ok = all(1 <= n < math.inf for n in (warmup_steps, step_size))
        valid = counts_ok and 0 < gamma <= 1 and 0 < start_factor <= 1
        if not valid:
            raise ValueError("invalid scheduler settings")
        self.warmup_steps, self.step_size = warmup_steps, step_size
        self.gamma, self.start_factor = gamma, start_factor
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        factor = _factor(
            self.last_epoch, self.warmup_steps, self.step_size, self.gamma, self.start_factor
        )
        return [lr * factor for lr in self.base_lrs]
