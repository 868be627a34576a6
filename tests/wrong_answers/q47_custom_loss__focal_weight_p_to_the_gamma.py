"""Wrong: weights the loss by p_t^gamma instead of (1 - p_t)^gamma, favouring easy examples."""

import torch.nn.functional as F
from torch import nn

from solutions.q47_custom_loss import HuberFunction  # the rest as in the reference


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0, reduction="mean"):
        super().__init__()
        if gamma < 0 or reduction not in ("mean", "sum", "none"):
            raise ValueError("bad settings")
        self.gamma, self.reduction = gamma, reduction

    def forward(self, logits, target):
        log_pt = F.log_softmax(logits, dim=1).gather(1, target.unsqueeze(1)).squeeze(1)
        loss = -(log_pt.exp() ** self.gamma) * log_pt
        if self.reduction == "mean":
            return loss.mean()
        return loss.sum() if self.reduction == "sum" else loss
