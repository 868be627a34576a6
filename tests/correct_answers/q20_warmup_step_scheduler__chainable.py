"""Correct: a chainable get_lr, scaling each group's current lr by the ratio of factors."""

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
        if not (1 <= warmup_steps < math.inf and 1 <= step_size < math.inf):
            raise ValueError(
                f"warmup_steps and step_size must be >= 1, got {warmup_steps}, {step_size}"
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

    def _factor(self, t):
        if t < self.warmup_steps:
            return self.start_factor + (1 - self.start_factor) * t / self.warmup_steps
        return self.gamma ** ((t - self.warmup_steps) // self.step_size)

    def get_lr(self) -> list[float]:
        # Chainable, as torch's own schedulers: scale each group's current lr.
        t = self.last_epoch
        if t == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        ratio = self._factor(t) / self._factor(t - 1)
        return [group["lr"] * ratio for group in self.optimizer.param_groups]
