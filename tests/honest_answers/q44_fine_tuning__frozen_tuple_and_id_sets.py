"""The frozen blocks kept in a plain tuple; train() walks it; the optimizer split by an id set."""

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
        self.backbone = backbone
        reference = next(backbone.parameters(), None)
        where = {} if reference is None else {"device": reference.device, "dtype": reference.dtype}
        self.head = nn.Linear(num_features, num_classes, **where)
        blocks = list(backbone)
        # A plain tuple, not a module: the blocks stay registered under backbone only.
        self.frozen_blocks = tuple(blocks[:-1] if train_last_block else blocks)
        for block in self.frozen_blocks:
            block.requires_grad_(False)
        if train_last_block:
            backbone[-1].requires_grad_(True)
        self.train()

    def train(self, mode: bool = True) -> "FineTuner":
        super().train(mode)
        for block in self.frozen_blocks:
            block.eval()
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = self.backbone(x)
        return self.head(features)


def make_optimizer(
    model: "FineTuner", lr: float, last_block_lr: float | None = None
) -> torch.optim.Optimizer:
    in_last_block = {id(p) for p in model.backbone[-1].parameters()}
    trainable = [p for p in model.parameters() if p.requires_grad]
    groups = [
        {"params": [p for p in trainable if id(p) not in in_last_block], "lr": lr},
        {
            "params": [p for p in trainable if id(p) in in_last_block],
            "lr": lr / 10 if last_block_lr is None else last_block_lr,
        },
    ]
    return torch.optim.SGD([g for g in groups if g["params"]], lr=lr, momentum=0.9)
