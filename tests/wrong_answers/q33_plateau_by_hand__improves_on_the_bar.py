"""Wrong: a metric exactly on the threshold bar counts as an improvement (<= instead of <)."""

from solutions.q33_plateau_by_hand import PlateauLR as _Reference


class PlateauLR(_Reference):
    def _improves(self, value):
        if self.mode == "min":
            rel, bar = self.best * (1 - self.threshold), self.best - self.threshold
            return value <= (rel if self.threshold_mode == "rel" else bar)
        rel, bar = self.best * (1 + self.threshold), self.best + self.threshold
        return value >= (rel if self.threshold_mode == "rel" else bar)
