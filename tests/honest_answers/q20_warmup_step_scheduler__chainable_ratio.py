"""Chainable get_lr: each step scales the groups' current lr by factor(t) / factor(t - 1)."""

import math

import torch
from torch.optim.lr_scheduler import LRScheduler


def _is_count(value: float) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and value >= 1


def _is_fraction(value: float) -> bool:
    return isinstance(value, (int, float)) and 0.0 < value <= 1.0


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
        for name, value in (("warmup_steps", warmup_steps), ("step_size", step_size)):
            if not _is_count(value):
                raise ValueError(f"{name} must be a finite number >= 1, got {value!r}")
        for name, value in (("gamma", gamma), ("start_factor", start_factor)):
            if not _is_fraction(value):
                raise ValueError(f"{name} must lie in (0, 1], got {value!r}")
        self.warmup_steps = warmup_steps
        self.step_size = step_size
        self.gamma = gamma
        self.start_factor = start_factor
        super().__init__(optimizer, last_epoch)

    def _factor(self, t: int) -> float:
        if t < self.warmup_steps:
            return self.start_factor + (1.0 - self.start_factor) * t / self.warmup_steps
        return self.gamma ** ((t - self.warmup_steps) // self.step_size)

    def get_lr(self) -> list[float]:
        t = self.last_epoch
        lrs = [group["lr"] for group in self.optimizer.param_groups]
        if t == 0:
            return [lr * self.start_factor for lr in lrs]
        ratio = self._factor(t) / self._factor(t - 1)
        return [lr * ratio for lr in lrs]
