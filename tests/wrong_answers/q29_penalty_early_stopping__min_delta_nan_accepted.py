"""Wrong: checks `min_delta < 0`, which nan passes (every comparison with nan is False), and
accepts an infinite min_delta, with which no epoch can improve."""

from solutions.q29_penalty_early_stopping import (  # the rest as in the reference
    EarlyStopping as _Reference,
    weight_penalty,
)


class EarlyStopping(_Reference):
    def __init__(self, patience, min_delta=0.0):
        if patience < 1:
            raise ValueError("patience must be >= 1")
        _Reference.__init__(self, patience, 0.0)
        if min_delta < 0:
            raise ValueError("min_delta must be >= 0")
        self.min_delta = min_delta
