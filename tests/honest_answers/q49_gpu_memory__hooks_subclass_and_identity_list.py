"""A saved_tensors_hooks subclass that counts storages in a list by identity; a plain for loop."""

from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.utils.checkpoint
from torch import nn


class _SavedStorages(torch.autograd.graph.saved_tensors_hooks):
    """The hooks as a context manager of their own: every storage autograd saves, once."""

    def __init__(self) -> None:
        self.storages: list[torch.UntypedStorage] = []
        super().__init__(self._pack, self._unpack)

    def _pack(self, tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        # By identity: views share one storage object, and a freed one is still held here.
        if not any(storage is seen for seen in self.storages):
            self.storages.append(storage)
        return tensor

    @staticmethod
    def _unpack(tensor: torch.Tensor) -> torch.Tensor:
        return tensor

    @property
    def nbytes(self) -> int:
        return sum(storage.nbytes() for storage in self.storages)


def saved_bytes(fn: Callable[..., Any], *args: Any) -> int:
    saved = _SavedStorages()
    with saved:  # its __enter__ returns None, so no `as`
        fn(*args)
    return saved.nbytes


def checkpointed_forward(blocks: Sequence[nn.Module], x: torch.Tensor) -> torch.Tensor:
    h = x
    for block in blocks:
        h = torch.utils.checkpoint.checkpoint(block, h, use_reentrant=False)
    return h
