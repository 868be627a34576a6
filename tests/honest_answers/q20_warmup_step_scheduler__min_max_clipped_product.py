"""Closed form without branches: the warmup ramp clipped at 1 by min() times gamma to a power
clipped at 0 by max(); the settings checked by one helper before super().__init__."""

import math

import torch
from torch.optim.lr_scheduler import LRScheduler


def _at_least_one(name: str, value: float) -> float:
    if not (math.isfinite(value) and value >= 1):
        raise ValueError(f"{name} must be a finite number >= 1, got {value}")
    return value


def _unit(name: str, value: float) -> float:
    if not 0 < value <= 1:
        raise ValueError(f"{name} must lie in (0, 1], got {value}")
    return float(value)


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
        self.warmup_steps = _at_least_one("warmup_steps", warmup_steps)
        self.step_size = _at_least_one("step_size", step_size)
        self.gamma = _unit("gamma", gamma)
        self.start_factor = _unit("start_factor", start_factor)
        super().__init__(optimizer, last_epoch)

    def _factor(self, t: int) -> float:
        ramp = self.start_factor + (1.0 - self.start_factor) * min(t / self.warmup_steps, 1.0)
        decays = max((t - self.warmup_steps) // self.step_size, 0)
        return ramp * self.gamma**decays

    def get_lr(self) -> list[float]:
        """base_lr * factor(last_epoch) for every group."""
        factor = self._factor(self.last_epoch)
        return [base_lr * factor for base_lr in self.base_lrs]
