"""Wrong: groups model.named_parameters() by the module part of each name, which lists a
shared (tied) parameter once, so the second layer that owns it is left out."""

import torch

from solutions.q30_grad_clipping import clip_grad_norm


@torch.no_grad()
def layer_grad_norms(model):
    squares = {}
    for name, p in model.named_parameters():
        if p.grad is not None:
            layer = name.rpartition(".")[0]
            squares[layer] = squares.get(layer, 0) + p.grad.pow(2).sum()
    return {layer: total.sqrt() for layer, total in squares.items()}
