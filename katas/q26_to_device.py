"""Kata 26: move tensors and models between the CPU and an accelerator.

A model and the tensors it computes on must be on the same device. Three facts answer most
questions about getting them there:

- Which device: `torch.accelerator` names the machine's accelerator whatever its kind
  (CUDA, ROCm, Apple MPS, Intel XPU...): `torch.accelerator.is_available()` and
  `torch.accelerator.current_accelerator()`. Code that asks `torch.cuda.is_available()`
  runs on the CPU on every other accelerator.
- `module.to(device)` moves the module's parameters and buffers *in place* and returns the
  module itself; `tensor.to(device)` returns a *new* tensor on the device and leaves the
  original where it was (or returns the tensor itself when nothing changes). `x.to(device)`
  on a line of its own does nothing useful; `model.to(device)` on a line of its own does.
  An optimizer built before `model.to` still holds the model's parameters: they are the
  same objects, with their data moved.
- `non_blocking=True` lets a copy from the CPU to the accelerator run in the background
  while the CPU goes on (preparing the next batch); it overlaps only when the source is in
  pinned (page-locked) memory, `tensor.pin_memory()`, which is what `DataLoader(...,
  pin_memory=True)` gives (kata 25). It is safe because the kernels that read the copy run
  after it on the same stream. The other way, a `non_blocking` copy to the CPU returns
  before the values have arrived: reading them needs `torch.accelerator.synchronize()`
  first. A plain blocking copy to the CPU has no such trap.

Real batches are rarely one tensor: a DataLoader yields dicts, lists, tuples and namedtuples
of tensors mixed with ids, file names and other plain values. One small recursive function
moves all the tensors, keeps every container the kind it was (code downstream reads
`batch.image` or unpacks a tuple), and passes the rest through.

Task: `pick_device`, `place_for_training` (a model in place, its inputs as copies),
`copy_to` (pinned and non-blocking where that is safe) and `to_device` for nested batches.
"""

from collections.abc import Sequence
from typing import Any

import torch
from torch import nn


def pick_device() -> torch.device:
    """The device to train on: the machine's current accelerator, or the CPU without one.

    - Rule: ask `torch.accelerator`: when `torch.accelerator.is_available()`, return
      `torch.accelerator.current_accelerator()` (a `torch.device` such as `cuda` or `mps`,
      whatever the kind); otherwise `torch.device("cpu")`. Not `torch.cuda` alone: it misses
      every accelerator that is not CUDA.
    - Returns a `torch.device` (not a string); its index may be left out (None) or be
      `torch.accelerator.current_device_index()`.

    >>> isinstance(pick_device(), torch.device)
    True
    """
    # TODO: the current accelerator when one is available, else the CPU.
    raise NotImplementedError


def place_for_training(
    model: nn.Module, inputs: Sequence[torch.Tensor], device: torch.device | str
) -> list[torch.Tensor]:
    """Put `model` on `device` and return `inputs` moved there.

    - model: moved in place, every parameter and every buffer (a BatchNorm's running
      statistics too), so the caller's `model` object is on `device` afterwards. Its
      parameters stay the same `nn.Parameter` objects: an optimizer built before the call
      still updates the moved model. Only the device changes: the dtypes of its parameters
      and buffers (a float64 model stays float64), its train/eval mode and its parameters'
      requires_grad stay as the caller set them (a model being fine-tuned keeps its frozen
      layers and a BatchNorm in eval mode), and so do the gradients its parameters hold
      (their `.grad`, moved along with them as module.to moves them, not cleared). Nothing
      is returned for it (module.to moves in place; hint: what it returns is the module
      itself).
    - inputs: tensors on any device. Returns a new list of them moved to `device`: same
      values, shapes and dtypes (a float64 input stays float64, whatever the model's
      dtype). The caller's tensors stay where they were (tensor.to
      returns a copy; a tensor already on `device` may come back as itself). A copy to the
      CPU blocks (no `non_blocking`): the caller reads the values without synchronizing.

    >>> model = nn.Linear(2, 1)
    >>> (x,) = place_for_training(model, [torch.ones(3, 2)], "meta")
    >>> model.weight.device, x.device
    (device(type='meta'), device(type='meta'))
    """
    # TODO: move the model in place, and return the moved copies of the inputs.
    raise NotImplementedError


def copy_to(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    """`tensor` on `device`, copied the way an input pipeline copies it.

    - An accelerator here is a device that runs kernels and is not the CPU: `meta` (shapes
      without data) is not one.
    - Rule, from the CPU to an accelerator (tensor on the CPU, device an accelerator): copy
      from pinned memory with `non_blocking=True`. Pin a tensor that is not pinned yet
      (`tensor.pin_memory()` returns a pinned copy; a tensor already pinned may be used as
      it is), then `.to(device, non_blocking=True)` from the pinned tensor.
    - Rule, every other copy (to the CPU, to meta, or between accelerators) is blocking
      (`non_blocking` False, the default): a non-blocking copy to the CPU hands back a
      tensor whose values may not have arrived yet, and the caller would read it without
      a `torch.accelerator.synchronize()`.
    - A tensor already on `device` comes back as itself, not pinned and not copied, however
      the device is spelled ("cuda" for the current CUDA device, "cuda:0",
      `torch.device("cpu", 0)`...).
    - Returns a tensor with the same values, shape and dtype on `device`; `tensor` is not
      modified.

    >>> copy_to(torch.arange(3), "cpu")
    tensor([0, 1, 2])
    """
    # TODO: pin and copy non-blocking from the CPU to an accelerator; block otherwise.
    raise NotImplementedError


def to_device(batch: Any, device: torch.device | str) -> Any:
    """Return `batch` with every tensor in it moved to `device`.

    - device: a `torch.device` or a string such as "cpu" or "cuda:0".
    - A tensor becomes `tensor.to(device)`: same values, shape and dtype (never a cast), a
      blocking copy (no `non_blocking`), still in its autograd graph (no detach).
      A tensor already on `device` comes back as the same object, not a copy (as
      `Tensor.to` does).
    - A dict becomes a new dict of the same class with the same keys in the same order
      (the very same key objects, a tensor key included: only values move): an OrderedDict
      stays an OrderedDict, a defaultdict stays a defaultdict with the same default_factory
      (`copy.copy` keeps both; then set the moved values on the copy).
      A list becomes a new list; a tuple a new tuple; a namedtuple a new instance of the
      same namedtuple class; any other subclass of list or tuple becomes a plain list or
      tuple (its constructor may take other arguments). Their items are converted the same
      way, to any depth.
    - Anything else (numbers, strings, None, NumPy arrays, other objects) is returned as
      it is: the very same object. So are containers that are no dict, list or tuple: a
      UserDict or other Mapping, a UserList, a deque, a range, a set, a dataclass (their
      tensors stay where they are).
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
