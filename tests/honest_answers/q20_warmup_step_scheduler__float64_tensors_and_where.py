"""Closed form in float64 tensors: both phases computed for step t and picked by torch.where,
the base lrs scaled as one tensor and turned back into Python floats with tolist()."""

import math

import torch
from torch.optim.lr_scheduler import LRScheduler


class WarmupStepLR(LRScheduler):
    """Linear warmup, then gamma every step_size steps."""

    def __init__(
        self,
        optimizer: torch.optim.Optimizer,
        warmup_steps: int,
        step_size: int,
        gamma: float = 0.1,
        start_factor: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        for name, count in (("warmup_steps", warmup_steps), ("step_size", step_size)):
            if math.isnan(count) or math.isinf(count) or count < 1:
                raise ValueError(f"{name} must be a finite number >= 1, got {count}")
        for name, value in (("gamma", gamma), ("start_factor", start_factor)):
            if math.isnan(value) or value <= 0 or value > 1:
                raise ValueError(f"{name} must lie in (0, 1], got {value}")
        self.warmup_steps = warmup_steps
        self.step_size = step_size
        self.gamma = gamma
        self.start_factor = start_factor
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """Every group's base lr times factor(last_epoch)."""
        t = torch.tensor(float(self.last_epoch), dtype=torch.float64)
        warmup = torch.tensor(float(self.warmup_steps), dtype=torch.float64)
        ramp = self.start_factor + (1 - self.start_factor) * t / warmup
        decay = torch.tensor(self.gamma, dtype=torch.float64) ** torch.div(
            t - warmup, self.step_size, rounding_mode="floor"
        )
        factor = torch.where(t < warmup, ramp, decay)
        base = torch.tensor([float(lr) for lr in self.base_lrs], dtype=torch.float64)
        return (base * factor).tolist()
