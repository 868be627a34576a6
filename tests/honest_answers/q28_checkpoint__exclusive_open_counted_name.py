"""pathlib throughout; the temporary file opened with mode "xb" under a name counted up from the
process id until one is free (no random draw); nested state groups; map_location="cpu"."""

import os
import random
from pathlib import Path
from typing import BinaryIO

import torch
from torch import nn
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LRScheduler


def _open_fresh(folder: Path, stem: str) -> tuple[Path, BinaryIO]:
    attempt = 0
    while True:
        candidate = folder / f".{stem}.{os.getpid()}.{attempt}.tmp"
        try:
            return candidate, open(candidate, "xb")  # exclusive: never an existing file
        except FileExistsError:
            attempt += 1


def save_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
    epoch: int,
) -> None:
    target = Path(path)
    rng = {"torch": torch.get_rng_state(), "python": random.getstate()}
    if torch.cuda.is_available():
        rng["cuda"] = torch.cuda.get_rng_state_all()
    payload = {
        "states": {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
        },
        "epoch": int(epoch),
        "rng": rng,
    }
    temporary, handle = _open_fresh(target.parent, target.name)
    try:
        with handle:
            torch.save(payload, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def load_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
) -> int:
    payload = torch.load(Path(path), map_location="cpu", weights_only=True)
    states = payload["states"]
    model.load_state_dict(states["model"])
    optimizer.load_state_dict(states["optimizer"])
    scheduler.load_state_dict(states["scheduler"])
    rng = payload["rng"]
    torch.set_rng_state(rng["torch"])
    if "cuda" in rng and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["cuda"])
    version, internal, gauss = rng["python"]
    random.setstate((version, tuple(internal), gauss))
    return int(payload["epoch"])
