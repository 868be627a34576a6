"""The best value kept as a 0-dim float64 CPU tensor (a copy, never the caller's metric) and
compared with torch.lt / torch.gt against a bound computed by torch; the lrs themselves stay
Python floats, cut in a helper that returns whether anything changed."""

import math

import torch

_COMPARE = {"min": torch.lt, "max": torch.gt}


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
        if mode not in _COMPARE:
            raise ValueError(f"mode must be 'min' or 'max', got {mode!r}")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold_mode must be 'rel' or 'abs', got {threshold_mode!r}")
        if not 0.0 <= factor < 1.0:
            raise ValueError(f"factor must be in [0, 1), got {factor}")
        if threshold < 0:
            raise ValueError(f"threshold must be >= 0, got {threshold}")
        if patience < 0 or cooldown < 0:
            raise ValueError(f"patience and cooldown must be >= 0, got {patience}, {cooldown}")
        self.optimizer = optimizer
        self.mode = mode
        self.factor = factor
        self.patience = patience
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self.cooldown = cooldown
        self.min_lr = min_lr
        self.eps = eps
        start = math.inf if mode == "min" else -math.inf
        self.best = torch.tensor(start, dtype=torch.float64)
        self.bad_epochs = 0
        self.cooldown_left = 0

    def _bound(self) -> torch.Tensor:
        sign = -1.0 if self.mode == "min" else 1.0
        if self.threshold_mode == "rel":
            return self.best * (1.0 + sign * self.threshold)
        return self.best + sign * self.threshold

    def _as_float64(self, metric: float | torch.Tensor) -> torch.Tensor:
        if isinstance(metric, torch.Tensor):
            return metric.detach().to(device="cpu", dtype=torch.float64, copy=True).reshape(())
        return torch.tensor(metric, dtype=torch.float64)

    def _cut(self) -> bool:
        changed = False
        for group in self.optimizer.param_groups:
            old = float(group["lr"])
            new = max(old * self.factor, self.min_lr)
            if old - new > self.eps:
                group["lr"] = new
                changed = True
        return changed

    def step(self, metric: float | torch.Tensor) -> None:
        value = self._as_float64(metric)
        if bool(_COMPARE[self.mode](value, self._bound())):
            self.best = value
            self.bad_epochs = 0
        else:
            self.bad_epochs += 1
        if self.cooldown_left > 0:
            self.cooldown_left -= 1
            self.bad_epochs = 0
        if self.bad_epochs > self.patience:
            self._cut()
            self.cooldown_left = self.cooldown
            self.bad_epochs = 0
