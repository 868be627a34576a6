"""Wrong: registers gamma as an nn.Parameter, so the module has a parameter that an
optimizer over loss_fn.parameters() would train."""

import torch
from torch import nn

from solutions.q47_custom_loss import FocalLoss as _Reference, HuberFunction


class FocalLoss(_Reference):
    def __init__(self, gamma=2.0, reduction="mean"):
        super().__init__(gamma, reduction)
        self.gamma = nn.Parameter(torch.tensor(float(gamma)))
