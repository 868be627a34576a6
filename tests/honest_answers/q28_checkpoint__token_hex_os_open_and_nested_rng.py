"""Nested "rng" section with Python's state as lists; the temporary name from
secrets.token_hex, created with os.open(O_CREAT | O_EXCL), written through a file object
with fsync, cleaned up in an except BaseException; loads with map_location=torch.device("cpu")."""

import contextlib
import os
import random
import secrets
from typing import Any

import torch
from torch import nn
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LRScheduler


def _exclusive_temp(folder: str, name: str) -> tuple[str, int]:
    """A new file beside the checkpoint, never one already there."""
    while True:
        candidate = os.path.join(folder, f".{name}.{secrets.token_hex(8)}.tmp")
        try:
            fd = os.open(candidate, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            continue
        return candidate, fd


def save_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
    epoch: int,
) -> None:
    version, internal, gauss_next = random.getstate()
    rng: dict[str, Any] = {
        "torch": torch.get_rng_state(),
        "python": [version, list(internal), gauss_next],
    }
    if torch.cuda.is_available():
        rng["cuda"] = torch.cuda.get_rng_state_all()
    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "epoch": int(epoch),
        "rng": rng,
    }

    target = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(target))
    temp, fd = _exclusive_temp(folder, name)
    try:
        with open(fd, "wb") as handle:  # closes the descriptor too
            torch.save(state, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise


def load_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
) -> int:
    state = torch.load(path, map_location=torch.device("cpu"), weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    rng = state["rng"]
    torch.set_rng_state(rng["torch"])
    if "cuda" in rng and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["cuda"])
    version, internal, gauss_next = rng["python"]
    random.setstate((version, tuple(internal), gauss_next))
    return int(state["epoch"])
