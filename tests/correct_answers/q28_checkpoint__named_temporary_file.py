"""NamedTemporaryFile(delete=False) in the target's folder, torch.save by its name, Path.replace,
and a finally that unlinks whatever is left."""

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
    target = Path(path)
    with tempfile.NamedTemporaryFile(dir=target.parent, suffix=".part", delete=False) as f:
        name = f.name
    try:
        torch.save(checkpoint, name)
        Path(name).replace(target)
    finally:
        if os.path.exists(name):
            os.unlink(name)


def load_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
) -> int:
    # weights_only=True unpickles tensors and plain containers only, never arbitrary code.
    checkpoint = torch.load(path, weights_only=True, map_location=lambda storage, _: storage)
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
