"""Explicit NaN guard, a threshold bound computed once, cooldown as a flag."""

import math

import torch


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
        errors = []
        if mode not in {"min", "max"}:
            errors.append(f"mode={mode!r}")
        if threshold_mode not in {"rel", "abs"}:
            errors.append(f"threshold_mode={threshold_mode!r}")
        if not (factor >= 0 and factor < 1):
            errors.append(f"factor={factor}")
        if threshold < 0:
            errors.append(f"threshold={threshold}")
        if patience < 0:
            errors.append(f"patience={patience}")
        if cooldown < 0:
            errors.append(f"cooldown={cooldown}")
        if errors:
            raise ValueError("invalid " + ", ".join(errors))
        self.optimizer = optimizer
        self.minimize = mode == "min"
        self.relative = threshold_mode == "rel"
        self.factor, self.patience, self.threshold = factor, patience, threshold
        self.cooldown, self.min_lr, self.eps = cooldown, min_lr, eps
        self.best = math.inf if self.minimize else -math.inf
        self.bad_epochs = 0
        self.cooldown_left = 0

    def _bound(self) -> float:
        t = self.threshold
        if self.relative:
            return self.best * (1 - t) if self.minimize else self.best * (1 + t)
        return self.best - t if self.minimize else self.best + t

    def step(self, metric: float | torch.Tensor) -> None:
        value = metric.item() if isinstance(metric, torch.Tensor) else float(metric)
        bound = self._bound()
        improved = not math.isnan(value) and (value < bound if self.minimize else value > bound)
        if improved:
            self.best = value
        self.bad_epochs = 0 if improved else self.bad_epochs + 1

        cooling = self.cooldown_left > 0
        if cooling:
            self.cooldown_left -= 1
            self.bad_epochs = 0

        if self.bad_epochs > self.patience:
            for group in self.optimizer.param_groups:
                current = float(group["lr"])
                lowered = max(current * self.factor, self.min_lr)
                if current - lowered > self.eps:
                    group["lr"] = lowered
            self.cooldown_left = self.cooldown
            self.bad_epochs = 0
