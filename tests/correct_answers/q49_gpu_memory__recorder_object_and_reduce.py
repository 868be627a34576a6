"""Correct: a recorder object as the pack/unpack pair, and functools.reduce over blocks."""

import functools
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class _StorageLedger:
    """Observes saved tensors; remembers each storage's size once, by its address."""

    def __init__(self) -> None:
        self.sizes: dict[int, int] = {}

    def pack(self, tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        self.sizes.setdefault(storage.data_ptr(), storage.nbytes())
        return tensor

    @staticmethod
    def unpack(tensor: torch.Tensor) -> torch.Tensor:
        return tensor

    @property
    def total(self) -> int:
        return sum(self.sizes.values())


def saved_bytes(fn: Callable[..., Any], *args: Any) -> int:
    ledger = _StorageLedger()
    with torch.autograd.graph.saved_tensors_hooks(ledger.pack, ledger.unpack):
        fn(*args)  # the result is dropped at once, and its graph with it
    return int(ledger.total)


def checkpointed_forward(blocks: Sequence[nn.Module], x: torch.Tensor) -> torch.Tensor:
    step = lambda h, block: checkpoint(block, h, use_reentrant=False)  # noqa: E731
    return functools.reduce(step, blocks, x)
