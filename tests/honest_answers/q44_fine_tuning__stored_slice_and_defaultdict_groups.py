"""The frozen part kept as a slice object, a plain tuple of frozen modules, defaultdict groups."""

from collections import defaultdict

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
        blocks = list(backbone)
        self.frozen_slice = slice(0, len(blocks) - 1 if train_last_block else len(blocks))
        # A plain tuple: these modules are registered through self.backbone already.
        self.frozen_blocks: tuple[nn.Module, ...] = tuple(blocks[self.frozen_slice])
        trainable = [p for block in blocks[self.frozen_slice.stop :] for p in block.parameters()]
        for block in self.frozen_blocks:
            block.requires_grad_(False)
        for p in [*trainable, *self.head.parameters()]:
            p.requires_grad_(True)
        self.train()

    def train(self, mode: bool = True) -> "FineTuner":
        super().train(mode)
        for block in self.frozen_blocks:
            block.eval()
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(x))


def make_optimizer(
    model: "FineTuner", lr: float, last_block_lr: float | None = None
) -> torch.optim.Optimizer:
    last_ids = {id(p) for p in model.backbone[-1].parameters()}
    groups: defaultdict[str, list[nn.Parameter]] = defaultdict(list)
    for p in model.parameters():
        if p.requires_grad:
            groups["last" if id(p) in last_ids else "rest"].append(p)
    rates = {"last": lr / 10 if last_block_lr is None else last_block_lr, "rest": lr}
    return torch.optim.SGD(
        [{"params": params, "lr": rates[key]} for key, params in groups.items()],
        lr=lr,
        momentum=0.9,
    )
