"""settings checked by a table of predicates and kept in one dict; warmup as a lerp."""

import math
from collections.abc import Callable

import torch
from torch.optim.lr_scheduler import LRScheduler


def _count_at_least_one(value: float) -> bool:
    return math.isfinite(value) and value >= 1


def _unit_fraction(value: float) -> bool:
    # NaN fails both comparisons.
    return 0 < value <= 1


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
        rules: dict[str, tuple[float, Callable[[float], bool], str]] = {
            "warmup_steps": (warmup_steps, _count_at_least_one, "a finite number >= 1"),
            "step_size": (step_size, _count_at_least_one, "a finite number >= 1"),
            "gamma": (gamma, _unit_fraction, "in (0, 1]"),
            "start_factor": (start_factor, _unit_fraction, "in (0, 1]"),
        }
        for name, (value, accept, wanted) in rules.items():
            if not accept(value):
                raise ValueError(f"{name} must be {wanted}, got {value!r}")
        # One dict of numbers: state_dict() saves and restores it as is.
        self.settings = {name: value for name, (value, _, _) in rules.items()}
        super().__init__(optimizer, last_epoch)

    def _factor(self, t: int) -> float:
        s = self.settings
        if t < s["warmup_steps"]:
            fraction = t / s["warmup_steps"]
            return s["start_factor"] * (1 - fraction) + fraction
        decays = (t - s["warmup_steps"]) // s["step_size"]
        return math.pow(s["gamma"], decays)

    def get_lr(self) -> list[float]:
        factor = self._factor(self.last_epoch)
        return [base_lr * factor for base_lr in self.base_lrs]
