"""Kata 28: full training checkpoints, saved atomically.

Saving a model for inference needs only `model.state_dict()`. Resuming training needs
everything that shapes the next steps: the weights, the optimizer's state (Adam's running
moments), the scheduler's position, the epoch, and the random number generators that
drive dropout, shuffling and augmentation. Save all of it and a resumed run is the same,
number for number, as one that never stopped. Three more habits: load with
`torch.load(..., weights_only=True)`, which refuses to run code hidden in a file; load onto
the CPU (`map_location="cpu"`), so that a checkpoint saved on a GPU opens anywhere and
`load_state_dict` moves each tensor to the model's device; and never write over the last
good checkpoint in place. A crash halfway through leaves a corrupt
file; write a temporary file next to it and `os.replace` it onto the real name, an atomic
rename: readers see the old file or the new one, never half of one.

Task: `save_checkpoint` and `load_checkpoint`.
"""

import os

from torch import nn
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LRScheduler


def save_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
    epoch: int,
) -> None:
    """Save everything needed to resume training to `path`, atomically.

    - Save the state dicts of model, optimizer and scheduler, the `epoch` (the number of
      epochs completed), and the random states: torch's CPU generator
      (`torch.get_rng_state()`), every CUDA device's generator when CUDA is available
      (`torch.cuda.get_rng_state_all()`: all devices, not only the current one; the tests
      simulate two), and Python's `random.getstate()`. Draw nothing from those generators
      (a temporary name from `random` or `torch.randint` would): a run that saves a
      checkpoint goes on exactly as one that does not.
    - The file must load with `torch.load(path, weights_only=True)`: only tensors, numbers,
      strings, None, and lists, tuples and dicts of them (no pickled objects).
    - Serialise with `torch.save`, given the temporary file's path or a file object
      opened on it (not an in-memory buffer); `torch.save` or `from torch import save`
      (the tests stand in for it, under either name, to simulate a full disk).
    - Rule: write to a temporary file in the same folder as `path` (os.replace is an atomic
      rename only within one file system), created under a fresh name, exclusively
      (`tempfile.mkstemp(dir=...)`, `tempfile.NamedTemporaryFile(dir=..., delete=False)` or
      `open(..., "x")`, so it never overwrites a file already there, another save's
      included), then, once it is written and closed, `os.replace` it onto `path` (not
      os.rename, which on Windows refuses an existing target, nor a replace while the file
      is still open, which Windows refuses too; and never remove the old checkpoint
      first). Touch no other file: the file at `path` is replaced, never opened for writing
      or removed. Close every file and descriptor you open (mkstemp returns an open
      descriptor).
    - If any step after the temporary file exists fails (torch.save, os.replace, and a
      KeyboardInterrupt too), the error propagates, the file previously at `path` (if any)
      is left exactly as it was, and no temporary file is left behind.
    - Hint: flushing and os.fsync before the rename make the new checkpoint survive a power
      cut; the tests cannot check it. The temporary file's permissions (mkstemp makes it
      readable by its owner only) are not specified.
    - path: a `str` or a `pathlib.Path`; its folder exists.
    - The model's train/eval mode (each submodule's) is left as it was.

    >>> save_checkpoint(  # doctest: +SKIP
    ...     tmp_path / "last.pt", model, optimizer, scheduler, epoch=3
    ... )
    >>> sorted(p.name for p in tmp_path.iterdir())  # doctest: +SKIP
    ['last.pt']
    """
    # TODO: gather the states into one dict; torch.save to a temp file; os.replace.
    raise NotImplementedError


def load_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
) -> int:
    """Restore a checkpoint written by `save_checkpoint`; return its epoch.

    - Read it with `torch.load(path, weights_only=True)`, the argument written out (never
      weights_only=False, and not a plain `torch.load(path)`: its default can be changed,
      by TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1 in the environment or an older torch, and then
      it unpickles whatever the file holds; an explicit weights_only=True cannot be).
    - Rule: read it onto the CPU, `map_location="cpu"` (any map_location that puts every
      tensor on the CPU will do): the file names the device each tensor was saved from,
      and without map_location torch.load puts it back there, which fails on a machine
      without that GPU. Each load_state_dict then copies the values to where the model's
      (and the optimizer's) tensors live, and torch.set_rng_state takes a CPU tensor anyway.
    - Returns the saved epoch as a Python int.
    - Load the saved states into `model`, `optimizer` and `scheduler` (built the same way
      as the saved ones, possibly freshly initialised), and set the random generators back
      to their saved states, so training continues exactly where it stopped: a run
      resumed from a checkpoint ends with the same weights, bit for bit, as one that never
      stopped (on the same device). The model's train/eval mode (each submodule's) is
      left as it was: the checkpoint does not hold it.

    >>> start = load_checkpoint(tmp_path / "last.pt", model, optimizer, scheduler)  # doctest: +SKIP
    >>> for epoch in range(start, num_epochs):  # doctest: +SKIP
    ...     train_one_epoch(...)
    """
    # TODO: torch.load with weights_only=True, load each state, restore the RNG states.
    raise NotImplementedError
