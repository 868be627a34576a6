"""Wrong: puts the frozen backbone into eval mode once, in __init__; the next model.train()
switches its BatchNorm layers back to training mode and their statistics drift."""

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
        frozen = backbone[:-1] if train_last_block else backbone
        frozen.requires_grad_(False)
        frozen.eval()

    def train(self, mode=True):
        return super().train(mode)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(x))
