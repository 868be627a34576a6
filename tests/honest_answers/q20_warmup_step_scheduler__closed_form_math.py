"""Closed form from base_lrs and last_epoch, with math.floor and math.pow; checks in a loop."""

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
        counts = {"warmup_steps": warmup_steps, "step_size": step_size}
        for name, value in counts.items():
            if not (value >= 1 and value != math.inf):
                raise ValueError(f"{name} must be a finite number >= 1, got {value}")
        rates = {"gamma": gamma, "start_factor": start_factor}
        for name, value in rates.items():
            if not (0 < value <= 1):
                raise ValueError(f"{name} must be in (0, 1], got {value}")
        self.warmup_steps = warmup_steps
        self.step_size = step_size
        self.gamma = gamma
        self.start_factor = start_factor
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        t = self.last_epoch
        if t < self.warmup_steps:
            scale = self.start_factor + (1 - self.start_factor) * (t / self.warmup_steps)
        else:
            decays = math.floor((t - self.warmup_steps) / self.step_size)
            scale = math.pow(self.gamma, decays)
        return [base_lr * scale for base_lr in self.base_lrs]
