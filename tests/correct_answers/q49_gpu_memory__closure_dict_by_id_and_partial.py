"""A pack closure filling a dict by id that keeps each storage alive; checkpoint by partial."""

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def saved_bytes(fn: Callable[..., Any], *args: Any) -> int:
    # The value keeps the storage object alive, so no later storage can reuse its id.
    storages: dict[int, Any] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        storages.setdefault(id(storage), storage)
        return tensor

    def unpack(tensor: torch.Tensor) -> torch.Tensor:
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        fn(*args)
    return sum(storage.nbytes() for storage in storages.values())


_checkpointed = partial(checkpoint, use_reentrant=False)


def checkpointed_forward(blocks: Sequence[nn.Module], x: torch.Tensor) -> torch.Tensor:
    h = x
    for block in blocks:
        h = _checkpointed(block, h)
    return h
