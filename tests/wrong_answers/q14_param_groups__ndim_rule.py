"""Wrong: decides by shape (no decay for tensors with fewer than 2 dims): the embedding
table is decayed and custom 1-D parameters are not."""

import torch


def decay_groups(model):
    trainable = [p for p in model.parameters() if p.requires_grad]
    return [p for p in trainable if p.dim() >= 2], [p for p in trainable if p.dim() < 2]


def make_optimizer(model, lr, weight_decay):
    decay, no_decay = decay_groups(model)
    groups = [{"params": decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, weight_decay=weight_decay)
