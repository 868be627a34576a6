"""Wrong: gives the last block last_block_lr only when it was built trainable
(train_last_block=True); a last block unfrozen since gets the head's lr."""

import torch

from solutions.q44_fine_tuning import FineTuner  # the rest as in the reference


def make_optimizer(model, lr, last_block_lr=None):
    trainable = [p for p in model.parameters() if p.requires_grad]
    if not model.train_last_block:
        return torch.optim.SGD(trainable, lr=lr, momentum=0.9)
    last_block = {id(p) for p in model.backbone[-1].parameters()}
    groups = [{"params": [p for p in trainable if id(p) not in last_block], "lr": lr}]
    last = [p for p in trainable if id(p) in last_block]
    groups.append({"params": last, "lr": lr / 10 if last_block_lr is None else last_block_lr})
    return torch.optim.SGD(groups, lr=lr, momentum=0.9)
