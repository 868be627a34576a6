"""A small recorder class used as the hooks' owner, holding saved storages in a set (storages
hash by identity, and the set keeps them alive); checkpointed_forward recurses over the
blocks."""

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn
from torch.utils import checkpoint as ckpt


class _SavedStorages:
    def __init__(self) -> None:
        self.storages: set[torch.UntypedStorage] = set()

    def pack(self, tensor: torch.Tensor) -> torch.Tensor:
        self.storages.add(tensor.untyped_storage())
        return tensor

    @staticmethod
    def unpack(tensor: torch.Tensor) -> torch.Tensor:
        return tensor

    def nbytes(self) -> int:
        return sum(storage.nbytes() for storage in self.storages)


def saved_bytes(fn: Callable[..., Any], *args: Any) -> int:
    recorder = _SavedStorages()
    hooks = torch.autograd.graph.saved_tensors_hooks(recorder.pack, recorder.unpack)
    with hooks:
        fn(*args)
    return recorder.nbytes()


def checkpointed_forward(blocks: Sequence[nn.Module], x: torch.Tensor) -> torch.Tensor:
    if len(blocks) == 0:
        return x
    h = ckpt.checkpoint(blocks[0], x, use_reentrant=False)
    return checkpointed_forward(blocks[1:], h)
