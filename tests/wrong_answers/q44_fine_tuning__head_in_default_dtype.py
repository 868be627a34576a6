"""Wrong: creates the head with nn.Linear's defaults (default device and dtype), not
where the backbone's parameters are."""

import torch
from torch import nn

from solutions.q44_fine_tuning import make_optimizer  # the rest as in the reference


class FineTuner(nn.Module):
    def __init__(self, backbone, num_features, num_classes, train_last_block=False):
        super().__init__()
        self.backbone = backbone
        self.train_last_block = train_last_block
        self.head = nn.Linear(num_features, num_classes)
        self._frozen().requires_grad_(False)
        self.train()

    def _frozen(self):
        return self.backbone[:-1] if self.train_last_block else self.backbone

    def train(self, mode=True):
        super().train(mode)
        self._frozen().eval()
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(x))
