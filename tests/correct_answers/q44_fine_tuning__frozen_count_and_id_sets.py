"""Correct: the frozen part kept as a count of leading blocks, the modes fixed by a helper
after every train(), the optimizer's groups split by sets of parameter ids."""

import torch
from torch import nn


class FineTuner(nn.Module):
    def __init__(self, backbone, num_features, num_classes, train_last_block=False):
        super().__init__()
        self.backbone = backbone
        reference = next(iter(backbone.parameters()))
        self.head = nn.Linear(
            num_features, num_classes, device=reference.device, dtype=reference.dtype
        )
        self.frozen_blocks = len(backbone) - 1 if train_last_block else len(backbone)
        for index, block in enumerate(backbone):
            block.requires_grad_(index >= self.frozen_blocks)
        self.head.requires_grad_(True)
        self.train(True)

    def _keep_frozen_in_eval(self):
        for index in range(self.frozen_blocks):
            self.backbone[index].eval()

    def train(self, mode=True):
        super().train(mode)
        self._keep_frozen_in_eval()
        return self

    def forward(self, x):
        return self.head(self.backbone(x))


def make_optimizer(model, lr, last_block_lr=None):
    last_ids = {id(p) for p in model.backbone[-1].parameters() if p.requires_grad}
    trainable = [p for p in model.parameters() if p.requires_grad]
    groups = [
        {"params": [p for p in trainable if id(p) not in last_ids], "lr": lr},
        {
            "params": [p for p in trainable if id(p) in last_ids],
            "lr": lr / 10 if last_block_lr is None else last_block_lr,
        },
    ]
    return torch.optim.SGD([group for group in groups if group["params"]], lr=lr, momentum=0.9)
