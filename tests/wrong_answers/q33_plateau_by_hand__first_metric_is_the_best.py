"""Wrong: takes the first metric as the best without comparing it, so a first metric of inf
(a diverged first epoch) is not counted as a bad epoch."""

from solutions.q33_plateau_by_hand import PlateauLR as _Reference


class PlateauLR(_Reference):
    def __init__(self, optimizer, *args, **kwargs):
        super().__init__(optimizer, *args, **kwargs)
        self.best = None

    def _improves(self, value):
        return self.best is None or super()._improves(value)
