"""Wrong: matches the layer types with type(module) in (...) instead of isinstance, so a
subclass of nn.LayerNorm or nn.Embedding gets its parameters decayed."""

import torch

from solutions.q14_param_groups import _NO_DECAY_LAYERS


def decay_groups(model):
    no_decay = set()
    for module in model.modules():
        for name, param in module.named_parameters(recurse=False):
            if name.endswith("bias") or type(module) in _NO_DECAY_LAYERS:
                no_decay.add(id(param))
    trainable = [p for p in model.parameters() if p.requires_grad]
    return (
        [p for p in trainable if id(p) not in no_decay],
        [p for p in trainable if id(p) in no_decay],
    )


def make_optimizer(model, lr, weight_decay):
    decay, no_decay = decay_groups(model)
    return torch.optim.AdamW(
        [{"params": decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=lr,
        weight_decay=weight_decay,
    )
