"""Correct: takes 1 - p_t from exp, and keeps the power off the backward pass where it is 0
(where p_t rounds to 1 its gradient is 0 instead of the tiny true value: within float
round-off)."""

import torch
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
        not_pt = 1 - log_pt.exp()
        positive = not_pt > 0
        safe = torch.where(positive, not_pt, 1.0)
        weight = torch.where(positive, safe**self.gamma, 0.0**self.gamma)
        loss = -weight * log_pt
        if self.reduction == "mean":
            return loss.mean()
        return loss.sum() if self.reduction == "sum" else loss
