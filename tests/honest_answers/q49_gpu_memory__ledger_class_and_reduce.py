"""A ledger class whose methods are the pack/unpack hooks; the checkpointed stack by reduce."""

import functools
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class _StorageLedger:
    """Remembers every storage autograd saves, once each (by object identity)."""

    def __init__(self) -> None:
        # Keeping the storage objects alive keeps their ids unique while we count.
        self.storages: dict[int, torch.UntypedStorage] = {}

    def pack(self, tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        self.storages.setdefault(id(storage), storage)
        return tensor

    def unpack(self, tensor: torch.Tensor) -> torch.Tensor:
        return tensor

    def total(self) -> int:
        return sum(storage.nbytes() for storage in self.storages.values())


def saved_bytes(fn: Callable[..., Any], *args: Any) -> int:
    ledger = _StorageLedger()
    with torch.autograd.graph.saved_tensors_hooks(ledger.pack, ledger.unpack):
        fn(*args)
    return ledger.total()


def _through_checkpoint(h: torch.Tensor, block: nn.Module) -> torch.Tensor:
    return checkpoint(block, h, use_reentrant=False)


def checkpointed_forward(blocks: Sequence[nn.Module], x: torch.Tensor) -> torch.Tensor:
    return functools.reduce(_through_checkpoint, blocks, x)
