"""State kept in plain dicts; the improvement test as one function of mode and threshold mode."""

import math
import operator

import torch

_VALID_MODES = {"min", "max"}
_VALID_THRESHOLD_MODES = {"rel", "abs"}


def _improves(mode: str, threshold_mode: str, metric: float, best: float, t: float) -> bool:
    if mode == "min":
        bound = best * (1 - t) if threshold_mode == "rel" else best - t
        return operator.lt(metric, bound)
    bound = best * (1 + t) if threshold_mode == "rel" else best + t
    return operator.gt(metric, bound)


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
        problems = []
        if mode not in _VALID_MODES:
            problems.append(f"mode {mode!r}")
        if threshold_mode not in _VALID_THRESHOLD_MODES:
            problems.append(f"threshold_mode {threshold_mode!r}")
        if not (factor >= 0 and factor < 1):
            problems.append(f"factor {factor}")
        if threshold < 0:
            problems.append(f"threshold {threshold}")
        if patience < 0:
            problems.append(f"patience {patience}")
        if cooldown < 0:
            problems.append(f"cooldown {cooldown}")
        if problems:
            raise ValueError("invalid " + ", ".join(problems))
        self.optimizer = optimizer
        self.settings = {
            "mode": mode,
            "factor": factor,
            "patience": patience,
            "threshold": threshold,
            "threshold_mode": threshold_mode,
            "cooldown": cooldown,
            "min_lr": min_lr,
            "eps": eps,
        }
        self.state = {
            "best": math.inf if mode == "min" else -math.inf,
            "bad": 0,
            "cooldown_left": 0,
        }

    def step(self, metric: float | torch.Tensor) -> None:
        s, st = self.settings, self.state
        current = float(metric.detach().cpu()) if torch.is_tensor(metric) else float(metric)

        if _improves(s["mode"], s["threshold_mode"], current, st["best"], s["threshold"]):
            st["best"], st["bad"] = current, 0
        else:
            st["bad"] += 1

        if st["cooldown_left"]:
            st["cooldown_left"] -= 1
            st["bad"] = 0

        if st["bad"] <= s["patience"]:
            return
        for group in self.optimizer.param_groups:
            lr = float(group["lr"])
            reduced = max(lr * s["factor"], s["min_lr"])
            if lr - reduced > s["eps"]:
                group["lr"] = reduced
        st["cooldown_left"], st["bad"] = s["cooldown"], 0
