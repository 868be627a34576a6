"""Wrong: a metric counts as an improvement unless it is no better than the bar, so a NaN
metric (a diverged epoch) becomes the new best."""

from solutions.q33_plateau_by_hand import PlateauLR as _Reference  # the rest as in the reference


class PlateauLR(_Reference):
    def _improves(self, value):
        if self.mode == "min":
            rel, bar = self.best * (1 - self.threshold), self.best - self.threshold
            return not value >= (rel if self.threshold_mode == "rel" else bar)
        rel, bar = self.best * (1 + self.threshold), self.best + self.threshold
        return not value <= (rel if self.threshold_mode == "rel" else bar)
