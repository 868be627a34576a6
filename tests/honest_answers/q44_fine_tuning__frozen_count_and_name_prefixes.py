"""The frozen part as a count of leading blocks; groups split by parameter-name prefix."""

from itertools import filterfalse

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
        reference = next(backbone.parameters())
        self.head = nn.Linear(
            num_features, num_classes, device=reference.device, dtype=reference.dtype
        )
        # A plain int, not a module: how many leading blocks are frozen, fixed now.
        self.frozen_blocks = len(backbone) - 1 if train_last_block else len(backbone)
        for block in backbone[: self.frozen_blocks]:
            block.requires_grad_(False)
        for block in backbone[self.frozen_blocks :]:
            block.requires_grad_(True)
        self.head.requires_grad_(True)
        self.train()

    def train(self, mode: bool = True) -> "FineTuner":
        super().train(mode)
        self.backbone[: self.frozen_blocks].eval()  # a new Sequential over the same blocks
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(x))


def make_optimizer(
    model: "FineTuner", lr: float, last_block_lr: float | None = None
) -> torch.optim.Optimizer:
    last_name = [name for name, _ in model.backbone.named_children()][-1]  # named blocks too
    last_prefix = f"backbone.{last_name}."
    trainable = [(name, p) for name, p in model.named_parameters() if p.requires_grad]

    def in_last_block(item: tuple[str, nn.Parameter]) -> bool:
        return item[0].startswith(last_prefix)

    last = [p for _, p in filter(in_last_block, trainable)]
    rest = [p for _, p in filterfalse(in_last_block, trainable)]
    groups = [
        {"params": rest, "lr": lr},
        {"params": last, "lr": lr / 10 if last_block_lr is None else last_block_lr},
    ]
    return torch.optim.SGD([g for g in groups if g["params"]], lr=lr, momentum=0.9)
