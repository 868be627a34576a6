"""Correct: the frozen modules listed at construction (a plain list), the modes set flag by
flag, the head moved with keyword arguments, the groups split by parameter ids."""

import torch
from torch import nn


class FineTuner(nn.Module):
    def __init__(self, backbone, num_features, num_classes, train_last_block=False):
        super().__init__()
        self.backbone = backbone
        first = next(iter(backbone.parameters()))
        self.head = nn.Linear(
            num_features, num_classes, **{"device": first.device, "dtype": first.dtype}
        )
        blocks = list(backbone)
        frozen_blocks = blocks[:-1] if train_last_block else blocks
        trained_blocks = blocks[-1:] if train_last_block else []
        # A plain list (not registered), so the frozen modules are not extra submodules.
        self._frozen_modules = [m for block in frozen_blocks for m in block.modules()]
        for block in frozen_blocks:
            for p in block.parameters():
                p.requires_grad = False
        for block in trained_blocks:
            for p in block.parameters():
                p.requires_grad = True
        self.train(True)

    def train(self, mode=True):
        for module in self.modules():
            module.training = mode
        for module in self._frozen_modules:
            module.training = False
        return self

    def forward(self, x):
        return self.head(self.backbone(x))


def make_optimizer(model, lr, last_block_lr=None):
    last_ids = {id(p) for p in model.backbone[len(model.backbone) - 1].parameters()}
    slow, fast = [], []
    for p in model.parameters():
        if p.requires_grad:
            (slow if id(p) in last_ids else fast).append(p)
    slow_lr = last_block_lr if last_block_lr is not None else lr / 10
    groups = [{"params": fast}] + ([{"params": slow, "lr": slow_lr}] if slow else [])
    return torch.optim.SGD(groups, lr=lr, momentum=0.9)
