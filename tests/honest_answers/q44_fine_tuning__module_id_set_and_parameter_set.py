"""The frozen part recorded as a frozenset of module ids (every module inside the frozen
blocks), which train() sets back to eval by walking self.modules() after super().train(mode);
the optimizer's groups split by membership in a set of the last block's Parameter objects."""

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
        first = next(iter(backbone.parameters()))
        self.head = nn.Linear(num_features, num_classes, device=first.device, dtype=first.dtype)
        *early, last = list(backbone)
        frozen_blocks = early if train_last_block else [*early, last]
        frozen_ids = {id(module) for block in frozen_blocks for module in block.modules()}
        if not train_last_block:
            frozen_ids.add(id(backbone))
        self._frozen_ids = frozenset(frozen_ids)
        for block in frozen_blocks:
            for parameter in block.parameters():
                parameter.requires_grad = False
        trainable = [self.head, last] if train_last_block else [self.head]
        for module in trainable:
            for parameter in module.parameters():
                parameter.requires_grad = True
        self.train(True)

    def train(self, mode: bool = True) -> "FineTuner":
        super().train(mode)  # each child's own train() runs, overrides included
        for module in self.modules():
            if id(module) in self._frozen_ids:
                module.training = False
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = self.backbone(x)
        return self.head(features)


def make_optimizer(
    model: "FineTuner", lr: float, last_block_lr: float | None = None
) -> torch.optim.Optimizer:
    last_block = set(model.backbone[-1].parameters())
    trainable = [p for p in model.parameters() if p.requires_grad]
    groups = [
        {"params": [p for p in trainable if p not in last_block], "lr": lr},
        {
            "params": [p for p in trainable if p in last_block],
            "lr": lr / 10 if last_block_lr is None else last_block_lr,
        },
    ]
    return torch.optim.SGD(groups, lr=lr, momentum=0.9)
