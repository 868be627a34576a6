"""Wrong: decides from model.named_parameters(), which lists a tied parameter once under
its first name and module only."""

import torch
from torch import nn

from solutions.q14_param_groups import _NO_DECAY_LAYERS


def decay_groups(model: nn.Module) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
    # Ask every module about the parameters it holds itself (recurse=False): a tied
    # parameter is held by two modules, and one "no decay" vote is enough.
    no_decay = set()
    for name, param in model.named_parameters():
        owner, _, own_name = name.rpartition(".")
        if own_name.endswith("bias") or isinstance(model.get_submodule(owner), _NO_DECAY_LAYERS):
            no_decay.add(id(param))
    # parameters() yields each parameter once, even when tied, in a stable order.
    trainable = [p for p in model.parameters() if p.requires_grad]
    return (
        [p for p in trainable if id(p) not in no_decay],
        [p for p in trainable if id(p) in no_decay],
    )


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
    )
