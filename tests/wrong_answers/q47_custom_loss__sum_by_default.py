"""Wrong: FocalLoss() sums the per-sample losses by default instead of averaging them."""

from solutions.q47_custom_loss import FocalLoss as _FocalLoss
from solutions.q47_custom_loss import HuberFunction

__all__ = ["FocalLoss", "HuberFunction"]


class FocalLoss(_FocalLoss):
    def __init__(self, gamma=2.0, reduction="sum"):
        super().__init__(gamma, reduction)
