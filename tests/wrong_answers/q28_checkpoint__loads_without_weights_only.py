"""Wrong: saves the Python random state as a random.Random object and loads with
weights_only=False to make that work, unpickling whatever the file holds."""

import os
import random
import tempfile
from pathlib import Path

import torch


def save_checkpoint(path, model, optimizer, scheduler, epoch):
    python_rng = random.Random()
    python_rng.setstate(random.getstate())
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "epoch": epoch,
        "torch_rng": torch.get_rng_state(),
        "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
        "python_rng": python_rng,
    }
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(checkpoint, f)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def load_checkpoint(path, model, optimizer, scheduler):
    checkpoint = torch.load(path, weights_only=False)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    scheduler.load_state_dict(checkpoint["scheduler"])
    torch.set_rng_state(checkpoint["torch_rng"])
    if checkpoint["cuda_rng"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(checkpoint["cuda_rng"])
    random.setstate(checkpoint["python_rng"].getstate())
    return checkpoint["epoch"]
