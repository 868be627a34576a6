"""Wrong: leaves out a group that has no parameters, so there are not always two."""

import torch
from torch import nn

from solutions.q14_param_groups import decay_groups  # the rest as in the reference


def make_optimizer(model: nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    decay, no_decay = decay_groups(model)
    groups = [{"params": decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(
        [group for group in groups if group["params"]],
        lr=lr,
        # Passed as the default so that AdamW validates it (it rejects negative values).
        weight_decay=weight_decay,
    )
