"""A table of improvement tests, validation in a loop, early return."""

import operator
from collections.abc import Callable

import torch

# (mode, threshold_mode) -> bound the metric must beat, and how it must beat it.
_BOUNDS: dict[tuple[str, str], Callable[[float, float], float]] = {
    ("min", "rel"): lambda best, t: best * (1 - t),
    ("min", "abs"): lambda best, t: best - t,
    ("max", "rel"): lambda best, t: best * (1 + t),
    ("max", "abs"): lambda best, t: best + t,
}
_BEATS = {"min": operator.lt, "max": operator.gt}


class PlateauLR:
    def __init__(
        self,
        optimizer: torch.optim.Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: float = 0.0,
        eps: float = 1e-8,
    ) -> None:
        if (mode, threshold_mode) not in _BOUNDS:
            raise ValueError(f"unknown mode {mode!r} or threshold_mode {threshold_mode!r}")
        checks = {
            "factor": 0 <= factor < 1,
            "threshold": threshold >= 0,
            "patience": patience >= 0,
            "cooldown": cooldown >= 0,
        }
        for name, ok in checks.items():
            if not ok:
                raise ValueError(f"invalid {name}")
        self._optimizer = optimizer
        self._bound = _BOUNDS[mode, threshold_mode]
        self._beats = _BEATS[mode]
        self._settings = (factor, patience, threshold, cooldown, float(min_lr), eps)
        self._best = float("inf") if mode == "min" else float("-inf")
        self._bad = 0
        self._cooling = 0

    def step(self, metric: float | torch.Tensor) -> None:
        factor, patience, threshold, cooldown, min_lr, eps = self._settings
        value = float(metric.detach().cpu()) if torch.is_tensor(metric) else float(metric)

        if self._beats(value, self._bound(self._best, threshold)):
            self._best, self._bad = value, 0
        else:
            self._bad += 1

        if self._cooling:
            self._cooling -= 1
            self._bad = 0

        if self._bad <= patience:
            return
        for group in self._optimizer.param_groups:
            lr = group["lr"]
            new_lr = max(lr * factor, min_lr)
            if lr - new_lr > eps:
                group["lr"] = new_lr
        self._bad = 0
        self._cooling = cooldown
