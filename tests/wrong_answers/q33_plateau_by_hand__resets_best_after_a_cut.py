"""Wrong: forgets the best value after every cut, so the next metric always counts as a
new best."""

import math

from solutions.q33_plateau_by_hand import PlateauLR as _Reference


class PlateauLR(_Reference):
    def step(self, metric):
        lrs = [group["lr"] for group in self.optimizer.param_groups]
        super().step(metric)
        if [group["lr"] for group in self.optimizer.param_groups] != lrs:
            self.best = math.inf if self.mode == "min" else -math.inf
