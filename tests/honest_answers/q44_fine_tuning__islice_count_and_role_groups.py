"""The frozen part kept as a number of leading blocks and re-walked through self.backbone's
children with itertools.islice on every train(); the optimizer's groups gathered in a dict
keyed by role, with the last block's parameters told apart by identity."""

import itertools

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
        reference = next(iter(backbone.parameters()))
        self.backbone = backbone
        self.head = nn.Linear(
            num_features, num_classes, device=reference.device, dtype=reference.dtype
        )
        # A plain int: a setting, not state torch must move or save.
        self.frozen_blocks = len(backbone) - 1 if train_last_block else len(backbone)
        for block in self._frozen():
            block.requires_grad_(False)
        for block in itertools.islice(backbone, self.frozen_blocks, None):
            block.requires_grad_(True)
        self.head.requires_grad_(True)
        self.train()

    def _frozen(self) -> "itertools.islice[nn.Module]":
        return itertools.islice(self.backbone.children(), self.frozen_blocks)

    def train(self, mode: bool = True) -> "FineTuner":
        super().train(mode)
        for block in self._frozen():
            block.eval()
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(x))


def make_optimizer(
    model: "FineTuner", lr: float, last_block_lr: float | None = None
) -> torch.optim.Optimizer:
    block_lr = lr / 10 if last_block_lr is None else last_block_lr
    in_last_block = {id(p) for p in model.backbone[-1].parameters()}
    by_role: dict[str, list[nn.Parameter]] = {"last": [], "rest": []}
    for p in filter(lambda p: p.requires_grad, model.parameters()):
        by_role["last" if id(p) in in_last_block else "rest"].append(p)
    groups = [
        {"params": by_role["last"], "lr": block_lr},
        {"params": by_role["rest"], "lr": lr},
    ]
    return torch.optim.SGD([g for g in groups if g["params"]], lr=lr, momentum=0.9)
