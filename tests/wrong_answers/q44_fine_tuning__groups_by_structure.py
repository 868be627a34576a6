"""Wrong: picks the head's parameters and the last block's trainable ones by where they sit,
so a block unfrozen after construction is left out and a head parameter frozen by hand is
kept."""

import torch

from solutions.q44_fine_tuning import FineTuner


def make_optimizer(model, lr, last_block_lr=None):
    groups = [{"params": list(model.head.parameters()), "lr": lr}]
    last = [p for p in model.backbone[-1].parameters() if p.requires_grad]
    if last:
        groups.append({"params": last, "lr": lr / 10 if last_block_lr is None else last_block_lr})
    return torch.optim.SGD(groups, lr=lr, momentum=0.9)
