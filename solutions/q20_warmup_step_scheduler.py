"""Kata 20: write your own LRScheduler subclass (reference answer)."""

import math

import torch
from torch.optim.lr_scheduler import LRScheduler


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
        # Written so that NaN fails (every comparison with NaN is false) and inf too.
        if not (1 <= warmup_steps < math.inf and 1 <= step_size < math.inf):
            raise ValueError(
                f"warmup_steps and step_size must be finite, >= 1: {warmup_steps}, {step_size}"
            )
        if not (0 < gamma <= 1 and 0 < start_factor <= 1):
            raise ValueError(
                f"gamma and start_factor must be in (0, 1], got {gamma}, {start_factor}"
            )
        # Plain numbers only: LRScheduler.state_dict() saves every attribute but the optimizer.
        self.warmup_steps = warmup_steps
        self.step_size = step_size
        self.gamma = gamma
        self.start_factor = start_factor
        # The base class takes the initial lrs and makes the first step (t = 0), so the
        # settings above must exist before this call.
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        # Closed form in last_epoch and base_lrs: it depends on nothing but saved state,
        # so a resumed scheduler continues exactly, whatever lr the optimizer holds.
        t = self.last_epoch
        if t < self.warmup_steps:
            factor = self.start_factor + (1 - self.start_factor) * t / self.warmup_steps
        else:
            factor = self.gamma ** ((t - self.warmup_steps) // self.step_size)
        return [base_lr * factor for base_lr in self.base_lrs]
