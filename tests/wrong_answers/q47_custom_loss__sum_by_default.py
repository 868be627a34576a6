"""Wrong: FocalLoss() sums the per-sample losses by default instead of averaging them."""

from solutions.q47_custom_loss import FocalLoss as _FocalLoss, HuberFunction  # noqa: F401  # isort: skip  # the rest as in the reference


class FocalLoss(_FocalLoss):
    def __init__(self, gamma=2.0, reduction="sum"):
        super().__init__(gamma, reduction)
