"""Wrong: passes betas=(0.9, 0.95) instead of leaving AdamW's other options at their
defaults."""

import torch
from torch import nn

from solutions.q14_param_groups import decay_groups  # the rest as in the reference


def make_optimizer(model: nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    decay, no_decay = decay_groups(model)
    return torch.optim.AdamW(
        [
            {"params": decay},  # takes the default weight_decay below
            {"params": no_decay, "weight_decay": 0.0},
        ],
        lr=lr,
        # Passed as the default so that AdamW validates it (it rejects negative values).
        weight_decay=weight_decay,
        betas=(0.9, 0.95),
    )
