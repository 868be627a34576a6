"""Correct: storages kept in a list and told apart by identity (`is`); the blocks folded
with functools.reduce."""

import functools

import torch
from torch.utils.checkpoint import checkpoint


def saved_bytes(fn, *args):
    seen = []

    def pack(tensor):
        storage = tensor.untyped_storage()
        if not any(storage is other for other in seen):
            seen.append(storage)
        return tensor

    def unpack(tensor):
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        fn(*args)
    return sum(s.nbytes() for s in seen)


def checkpointed_forward(blocks, x):
    return functools.reduce(lambda h, block: checkpoint(block, h, use_reentrant=False), blocks, x)
