"""Kata 49: GPU memory: what fills it, and activation checkpointing (reference answer)."""

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def saved_bytes(fn: Callable[..., Any], *args: Any) -> int:
    storages: dict[int, int] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        # One entry per storage: a tensor saved twice, or two views of one storage, hold
        # its memory once, and a saved view holds all of it.
        storage = tensor.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*args)
    return sum(storages.values())


def checkpointed_forward(blocks: Sequence[nn.Module], x: torch.Tensor) -> torch.Tensor:
    h = x
    for block in blocks:
        # Keeps the block's input only; its inside is recomputed in the backward pass,
        # just before its gradients are needed, one block at a time.
        h = checkpoint(block, h, use_reentrant=False)
    return h
