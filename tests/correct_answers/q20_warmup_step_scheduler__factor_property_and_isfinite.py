"""Closed form: a `factor` property read by get_lr, settings checked with math.isfinite."""

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
        self._check_count("warmup_steps", warmup_steps)
        self._check_count("step_size", step_size)
        self._check_fraction("gamma", gamma)
        self._check_fraction("start_factor", start_factor)
        self.warmup_steps = warmup_steps
        self.step_size = step_size
        self.gamma = gamma
        self.start_factor = start_factor
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _check_count(name: str, value: float) -> None:
        if not (math.isfinite(value) and value >= 1):
            raise ValueError(f"{name} must be a finite number >= 1, got {value!r}")

    @staticmethod
    def _check_fraction(name: str, value: float) -> None:
        if not 0.0 < value <= 1.0:
            raise ValueError(f"{name} must be in (0, 1], got {value!r}")

    @property
    def factor(self) -> float:
        t = self.last_epoch
        if t < self.warmup_steps:
            return self.start_factor + (1.0 - self.start_factor) * t / self.warmup_steps
        decays = math.floor((t - self.warmup_steps) / self.step_size)
        return self.gamma**decays

    def get_lr(self) -> list[float]:
        scale = self.factor
        return [base * scale for base in self.base_lrs]
