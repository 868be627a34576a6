"""train() written out child by child (no super().train call): each backbone block told its
own mode by position; the optimizer built from named_parameters split on the last block's
name prefix, its second group added with add_param_group."""

import torch
from torch import nn


class FineTuner(nn.Module):
    def __init__(
        self,
        backbone: nn.Sequential,
        num_features: int,
        num_classes: int,
        train_last_block: bool = False,
    ) -> None:
        super().__init__()
        first = next(backbone.parameters())
        self.backbone = backbone
        self.head = nn.Linear(num_features, num_classes, device=first.device, dtype=first.dtype)
        blocks = list(backbone)
        self.num_frozen = len(blocks) - int(train_last_block)
        for position, block in enumerate(blocks):
            for p in block.parameters():
                p.requires_grad = position >= self.num_frozen
        self.train(True)

    def train(self, mode: bool = True) -> "FineTuner":
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for child in self.children():
            if child is self.backbone:
                self.backbone.training = mode
                for position, block in enumerate(self.backbone):
                    block.train(mode and position >= self.num_frozen)
            else:
                child.train(mode)
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = self.backbone(x)
        return self.head(features)


def make_optimizer(
    model: "FineTuner", lr: float, last_block_lr: float | None = None
) -> torch.optim.Optimizer:
    if last_block_lr is None:
        last_block_lr = lr / 10
    last_name = [name for name, _ in model.backbone.named_children()][-1]
    prefix = f"backbone.{last_name}."
    last, rest = [], []
    for name, p in model.named_parameters():
        if p.requires_grad:
            (last if name.startswith(prefix) else rest).append(p)
    optimizer = torch.optim.SGD(rest, lr=lr, momentum=0.9)
    if last:
        optimizer.add_param_group({"params": last, "lr": last_block_lr})
    return optimizer
