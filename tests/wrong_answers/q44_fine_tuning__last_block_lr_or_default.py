"""Wrong: takes `last_block_lr or lr / 10`, so a last_block_lr of 0.0 becomes lr / 10."""

import torch

from solutions.q44_fine_tuning import FineTuner


def make_optimizer(model, lr, last_block_lr=None):
    last_block = {id(p) for p in model.backbone[-1].parameters()}
    trainable = [p for p in model.parameters() if p.requires_grad]
    groups = [{"params": [p for p in trainable if id(p) not in last_block], "lr": lr}]
    last = [p for p in trainable if id(p) in last_block]
    if last:
        groups.append({"params": last, "lr": last_block_lr or lr / 10})
    return torch.optim.SGD(groups, lr=lr, momentum=0.9)
