"""Wrong: puts the unfrozen last block in the optimizer at the head's learning rate,
ignoring last_block_lr."""

import torch

from solutions.q44_fine_tuning import FineTuner  # the rest as in the reference


def make_optimizer(model, lr, last_block_lr=None):
    trainable = [p for p in model.parameters() if p.requires_grad]
    return torch.optim.SGD(trainable, lr=lr, momentum=0.9)
