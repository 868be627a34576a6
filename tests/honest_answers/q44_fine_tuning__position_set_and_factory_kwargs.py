"""The frozen part recorded as a frozenset of block positions, frozen with requires_grad_;
the head made from a factory_kwargs dict read off a backbone parameter; the optimizer's
groups split by an identity test against the last block's parameters."""

from typing import Any

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
        factory_kwargs: dict[str, Any] = {"device": reference.device, "dtype": reference.dtype}
        self.head = nn.Linear(num_features, num_classes, **factory_kwargs)
        blocks = len(backbone)
        stop = blocks - 1 if train_last_block else blocks
        self._frozen_positions = frozenset(range(stop))
        for position, block in enumerate(backbone):
            block.requires_grad_(position not in self._frozen_positions)
        self.head.requires_grad_(True)
        self.train()

    def _frozen_blocks(self) -> list[nn.Module]:
        return [block for i, block in enumerate(self.backbone) if i in self._frozen_positions]

    def train(self, mode: bool = True) -> "FineTuner":
        super().train(mode)
        if len(self._frozen_positions) == len(self.backbone):
            self.backbone.eval()
        for block in self._frozen_blocks():
            block.eval()
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(x))


def make_optimizer(
    model: "FineTuner", lr: float, last_block_lr: float | None = None
) -> torch.optim.Optimizer:
    last_ids = {id(p) for p in model.backbone[-1].parameters()}
    slow: list[nn.Parameter] = []
    fast: list[nn.Parameter] = []
    for param in (p for p in model.parameters() if p.requires_grad):
        (slow if id(param) in last_ids else fast).append(param)
    slow_lr = lr / 10 if last_block_lr is None else last_block_lr
    return torch.optim.SGD(
        [{"params": fast, "lr": lr}, {"params": slow, "lr": slow_lr}],
        lr=lr,
        momentum=0.9,
    )
