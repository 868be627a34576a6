"""Kata 28: full training checkpoints, saved atomically (reference answer)."""

import os
import random
import tempfile
from pathlib import Path

import torch
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
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),  # Adam's moments: without them resuming differs
        "scheduler": scheduler.state_dict(),
        "epoch": epoch,
        # Dropout masks, shuffling and augmentation draw from these: save them all.
        "rng": {
            "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
            "python": random.getstate(),  # tuples of ints: fine for weights_only loading
        },
    }
    path = Path(path)
    # Write next to the target (same file system, so os.replace is an atomic rename).
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(checkpoint, f)
            f.flush()
            os.fsync(f.fileno())  # the bytes are on disk before the name points at them
        os.replace(tmp, path)  # readers see the old file or the new one, never half of one
    except BaseException:
        os.unlink(tmp)
        raise


def load_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
) -> int:
    # weights_only=True unpickles tensors and plain containers only, never arbitrary code.
    # map_location="cpu": a checkpoint saved on a GPU loads on any machine; load_state_dict
    # copies each tensor to where the model's lives, and the RNG states must be CPU tensors.
    checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    return _restore(checkpoint, model, optimizer, scheduler)


def _restore(
    checkpoint: dict, model: nn.Module, optimizer: Optimizer, scheduler: LRScheduler
) -> int:
    """Put every piece of a loaded checkpoint back; return the epoch it was saved after."""
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    scheduler.load_state_dict(checkpoint["scheduler"])
    rng = checkpoint["rng"]
    torch.set_rng_state(rng["torch"])
    if rng["cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["cuda"])
    random.setstate(rng["python"])
    return checkpoint["epoch"]
