"""A regex on each parameter's own name, a dict keyed by id as the memo, groups built as dicts."""

import re

import torch
from torch import nn

# The parameter's own name (after the last dot) ends with "bias", by the letter.
BIAS = re.compile(r"(?:^|\.)[^.]*bias$")
SPARED = (
    nn.BatchNorm1d,
    nn.BatchNorm2d,
    nn.BatchNorm3d,
    nn.SyncBatchNorm,
    nn.InstanceNorm1d,
    nn.InstanceNorm2d,
    nn.InstanceNorm3d,
    nn.LayerNorm,
    nn.GroupNorm,
    nn.RMSNorm,
    nn.Embedding,
    nn.EmbeddingBag,
)


def decay_groups(model: nn.Module) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
    # id -> (parameter, decays): the first pass lists every name a parameter has.
    memo: dict[int, tuple[nn.Parameter, bool]] = {}
    for prefix, module in model.named_modules(remove_duplicate=False):
        spared_layer = isinstance(module, SPARED)
        for name, param in module.named_parameters(recurse=False, remove_duplicate=False):
            full = f"{prefix}.{name}" if prefix else name
            decays = not (spared_layer or BIAS.search(full))
            _, before = memo.get(id(param), (param, True))
            memo[id(param)] = (param, before and decays)
    decay = [p for p in model.parameters() if p.requires_grad and memo[id(p)][1]]
    no_decay = [p for p in model.parameters() if p.requires_grad and not memo[id(p)][1]]
    return decay, no_decay


def make_optimizer(model: nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    decay, no_decay = decay_groups(model)
    return torch.optim.AdamW(
        [
            {"params": decay, "weight_decay": weight_decay},
            {"params": no_decay, "weight_decay": 0.0},
        ],
        lr=lr,
        weight_decay=weight_decay,
    )
