"""Wrong: takes the temporary file's folder from os.path.dirname(path), falling back to the
system temp folder when that is empty, so a bare file name ("last.pt") is written through
another folder (and file system) instead of next to the target in the working directory."""

import os
import random
import tempfile

import torch

from solutions.q28_checkpoint import load_checkpoint


def save_checkpoint(path, model, optimizer, scheduler, epoch):
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "epoch": epoch,
        "rng": {
            "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
            "python": random.getstate(),
        },
    }
    folder = os.path.dirname(path) or tempfile.gettempdir()
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(checkpoint, f)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
