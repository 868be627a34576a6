"""Correct: the frozen blocks kept as a plain tuple (not registered twice), modes set per
block in train(); the optimizer's groups from an id set of the last block."""

import torch
from torch import nn


class FineTuner(nn.Module):
    def __init__(self, backbone, num_features, num_classes, train_last_block=False):
        super().__init__()
        self.backbone = backbone
        weight = next(iter(backbone.parameters()))
        self.head = nn.Linear(num_features, num_classes, device=weight.device, dtype=weight.dtype)
        blocks = list(backbone)
        self._frozen_blocks = tuple(blocks[:-1] if train_last_block else blocks)  # a plain tuple
        for block in self._frozen_blocks:
            for p in block.parameters():
                p.requires_grad = False
        if train_last_block:
            for p in blocks[-1].parameters():
                p.requires_grad = True
        self.train(True)

    def train(self, mode=True):
        nn.Module.train(self, mode)
        for block in self._frozen_blocks:
            block.train(False)
        return self

    def forward(self, x):
        return self.head(self.backbone(x))


def make_optimizer(model, lr, last_block_lr=None):
    slow_lr = lr / 10 if last_block_lr is None else last_block_lr
    last = {id(p) for p in model.backbone[-1].parameters()}
    fast, slow = [], []
    for p in model.parameters():
        if p.requires_grad:
            (slow if id(p) in last else fast).append(p)
    groups = [{"params": fast}]
    if slow:
        groups.append({"params": slow, "lr": slow_lr})
    return torch.optim.SGD(groups, lr=lr, momentum=0.9)
