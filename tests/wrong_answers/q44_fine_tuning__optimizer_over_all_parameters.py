"""Wrong: builds the optimizer from model.parameters(), frozen parameters included, with a
single learning rate."""

import torch

from solutions.q44_fine_tuning import FineTuner  # the rest as in the reference


def make_optimizer(model, lr, last_block_lr=None):
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
