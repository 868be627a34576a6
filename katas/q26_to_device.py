"""Kata 26: move a whole batch to a device.

A model and the tensors it computes on must be on the same device; `tensor.to(device)` and
`model.to(device)` move them. Real batches are rarely one tensor: a DataLoader yields
dicts, lists, tuples and namedtuples of tensors mixed with ids, file names and other plain
values. One small recursive function moves all the tensors, keeps every container the kind
it was (code downstream reads `batch.image` or unpacks a tuple), and passes the rest through.

Task: write `to_device`, the helper every training loop needs.
"""

from typing import Any

import torch


def to_device(batch: Any, device: torch.device | str) -> Any:
    """Return `batch` with every tensor in it moved to `device`.

    - device: a `torch.device` or a string such as "cpu" or "cuda:0".
    - A tensor becomes `tensor.to(device)`: same values, shape and dtype (never a cast).
      A tensor already on `device` comes back as the same object, not a copy (as
      `Tensor.to` does).
    - A dict becomes a new dict of the same class with the same keys in the same order:
      an OrderedDict stays an OrderedDict, a defaultdict stays a defaultdict with the same
      default_factory (`copy.copy` keeps both; then set the moved values on the copy).
      A list becomes a new list; a tuple a new tuple; a namedtuple a new instance of the
      same namedtuple class. Their items are converted the same way, to any depth.
    - Anything else (numbers, strings, None, NumPy arrays, other objects) is returned as
      it is: the very same object.
    - The input is not modified: its containers keep their items and its tensors stay
      where they were.

    >>> from collections import namedtuple
    >>> Batch = namedtuple("Batch", "x ids")
    >>> batch = {"inputs": Batch(torch.zeros(2), ["a", "b"]), "label": (torch.tensor(1), 7)}
    >>> moved = to_device(batch, "meta")
    >>> moved["inputs"].x.device, moved["inputs"].ids, type(moved["label"]), moved["label"][1]
    (device(type='meta'), ['a', 'b'], <class 'tuple'>, 7)
    """
    # TODO: move tensors, rebuild dicts, lists, tuples and namedtuples, return the rest as is.
    raise NotImplementedError
