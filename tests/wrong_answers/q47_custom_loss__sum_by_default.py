"""Wrong: FocalLoss() sums the per-sample losses by default instead of averaging them."""

from solutions.q47_custom_loss import (  # the rest as in the reference
    FocalLoss as _FocalLoss,
    HuberFunction,
)


class FocalLoss(_FocalLoss):
    def __init__(self, gamma=2.0, reduction="sum"):
        super().__init__(gamma, reduction)
