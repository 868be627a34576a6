"""os.open with O_CREAT | O_EXCL under a pid-and-counter name, retried on FileExistsError; the
descriptor wrapped by os.fdopen; cleanup in an except BaseException that re-raises."""

import itertools
import os
import random

import torch
from torch import nn
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LRScheduler

_COUNTER = itertools.count()


def _open_fresh(folder: str, stem: str) -> tuple[int, str]:
    """Create a file no one else has, next to the checkpoint, and return (fd, its path)."""
    while True:
        candidate = os.path.join(folder, f".{stem}.{os.getpid()}.{next(_COUNTER)}.tmp")
        try:
            return os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), candidate
        except FileExistsError:
            continue


def save_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
    epoch: int,
) -> None:
    target = os.fspath(path)
    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "epoch": int(epoch),
        "rng": {
            "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
            "python": random.getstate(),
        },
    }
    folder, name = os.path.split(os.path.abspath(target))
    fd, temporary = _open_fresh(folder, name)
    try:
        with os.fdopen(fd, "wb") as handle:
            torch.save(state, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def load_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
) -> int:
    checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    scheduler.load_state_dict(checkpoint["scheduler"])
    rng = checkpoint["rng"]
    torch.set_rng_state(rng["torch"])
    if rng["cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["cuda"])
    version, internal, gauss_next = rng["python"]
    random.setstate((version, tuple(internal), gauss_next))
    return int(checkpoint["epoch"])
