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

from solutions.q28_checkpoint import load_checkpoint  # the rest as in the reference


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
