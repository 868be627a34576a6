"""The no-decay group's weight decay written as the int 0: it decays nothing, as 0.0."""

import torch
from torch import nn

# Layers whose parameters scale, shift or look up activations: decay would only pull them
# towards 0, so none of their parameters is decayed.
_NO_DECAY_LAYERS = (
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
    # Ask every module about the parameters it holds itself (recurse=False): a tied
    # parameter is held by two modules, and one "no decay" vote is enough. Each name counts
    # (remove_duplicate=False): a module may hold one parameter under two names.
    no_decay = set()
    for module in model.modules():
        for name, param in module.named_parameters(recurse=False, remove_duplicate=False):
            if name.endswith("bias") or isinstance(module, _NO_DECAY_LAYERS):
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
            {"params": no_decay, "weight_decay": 0},
        ],
        lr=lr,
        # Passed as the default so that AdamW validates it (it rejects negative values).
        weight_decay=weight_decay,
    )
