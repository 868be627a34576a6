"""Kata 49: GPU memory: what fills it, and activation checkpointing (reference answer)."""

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def saved_bytes(fn: Callable[..., Any], *args: Any) -> int:
    storages: dict[int, torch.UntypedStorage] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        # One entry per storage: a tensor saved twice, or two views of one storage, hold
        # its memory once, and a saved view holds all of it. Every view of a storage gives
        # the same storage object (kept here, so its id stays its own); on meta every
        # data_ptr() is 0, so the object, not the pointer, tells storages apart.
        storage = tensor.untyped_storage()
        storages[id(storage)] = storage
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*args)
    return sum(storage.nbytes() for storage in storages.values())


def checkpointed_forward(blocks: Sequence[nn.Module], x: torch.Tensor) -> torch.Tensor:
    h = x
    for block in blocks:
        # Keeps the block's input only; its inside is recomputed in the backward pass,
        # just before its gradients are needed, one block at a time.
        h = checkpoint(block, h, use_reentrant=False)
    return h
