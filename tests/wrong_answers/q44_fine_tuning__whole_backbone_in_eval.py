"""Wrong: keeps the whole backbone in eval mode, so an unfrozen last block never updates
its BatchNorm statistics (and its Dropout never drops)."""

import torch
from torch import nn

from solutions.q44_fine_tuning import make_optimizer  # the rest as in the reference


class FineTuner(nn.Module):
    def __init__(self, backbone, num_features, num_classes, train_last_block=False):
        super().__init__()
        self.backbone = backbone
        reference = next(backbone.parameters())
        self.head = nn.Linear(
            num_features, num_classes, device=reference.device, dtype=reference.dtype
        )
        backbone.requires_grad_(False)
        if train_last_block:
            backbone[-1].requires_grad_(True)
        self.train()

    def train(self, mode=True):
        super().train(mode)
        self.backbone.eval()
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(x))
