"""Wrong: writes a temp file and renames it, but leaves the temp file behind on failure."""

import os
import random
from pathlib import Path

import torch

from solutions.q28_checkpoint import load_checkpoint  # the rest as in the reference


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
    tmp = Path(str(path) + ".tmp")
    torch.save(checkpoint, tmp)
    os.replace(tmp, path)
