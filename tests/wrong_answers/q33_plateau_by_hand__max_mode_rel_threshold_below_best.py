"""Wrong: uses best * (1 - threshold) as the bar in mode "max" too, so a small drop counts
as an improvement."""

from solutions.q33_plateau_by_hand import PlateauLR as _Reference


class PlateauLR(_Reference):
    def _improves(self, value):
        if self.threshold_mode == "rel":
            bar = self.best * (1 - self.threshold)
        else:
            bar = self.best - self.threshold if self.mode == "min" else self.best + self.threshold
        return value < bar if self.mode == "min" else value > bar
