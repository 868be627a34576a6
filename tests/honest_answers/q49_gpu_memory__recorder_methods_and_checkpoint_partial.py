"""A recorder object whose bound methods are the hooks, storages matched by `is` in a list;
checkpoint bound with use_reentrant=False by functools.partial, called in a plain loop."""

import functools
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class _SavedStorages:
    """Keeps every distinct storage packed, each object itself (its id() stays its own)."""

    def __init__(self) -> None:
        self.storages: list[torch.UntypedStorage] = []

    def pack(self, tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        if not any(storage is kept for kept in self.storages):
            self.storages.append(storage)
        return tensor

    @staticmethod
    def unpack(tensor: torch.Tensor) -> torch.Tensor:
        return tensor

    @property
    def nbytes(self) -> int:
        return sum(storage.nbytes() for storage in self.storages)


def saved_bytes(fn: Callable[..., Any], *args: Any) -> int:
    recorder = _SavedStorages()
    hooks = torch.autograd.graph.saved_tensors_hooks(recorder.pack, recorder.unpack)
    with hooks:
        fn(*args)
    return recorder.nbytes


def checkpointed_forward(blocks: Sequence[nn.Module], x: torch.Tensor) -> torch.Tensor:
    run = functools.partial(checkpoint, use_reentrant=False)
    h = x
    for block in blocks:
        h = run(block, h)  # one checkpoint per block
    return h
