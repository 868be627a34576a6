"""Wrong: creates the temporary file in the system temp folder (tempfile.mkstemp() without dir),
where os.replace onto the target is no atomic rename once the two are on different file systems."""

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
    fd, tmp = tempfile.mkstemp(suffix=".tmp")
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
    checkpoint = torch.load(path, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    scheduler.load_state_dict(checkpoint["scheduler"])
    rng = checkpoint["rng"]
    torch.set_rng_state(rng["torch"])
    if rng["cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["cuda"])
    random.setstate(rng["python"])
    return checkpoint["epoch"]
