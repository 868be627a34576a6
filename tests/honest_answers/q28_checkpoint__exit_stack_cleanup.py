"""contextlib.ExitStack: the mkstemp descriptor wrapped by os.fdopen and closed by the stack, a
cleanup callback that removes the temporary file unless the stack's callbacks are popped after
os.replace; the states grouped in a nested "rng" dict."""

import contextlib
import os
import random
import tempfile

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
    rng: dict = {"torch": torch.get_rng_state(), "python": random.getstate()}
    if torch.cuda.is_available():
        rng["cuda"] = torch.cuda.get_rng_state_all()
    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "epoch": epoch,
        "rng": rng,
    }
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with contextlib.ExitStack() as cleanup:
        cleanup.callback(os.remove, tmp)  # runs on any failure, KeyboardInterrupt included
        with os.fdopen(fd, "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        cleanup.pop_all()  # the file now lives at path: nothing left to remove


def load_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
) -> int:
    state = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    rng = state["rng"]
    torch.set_rng_state(rng["torch"])
    if "cuda" in rng and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["cuda"])
    random.setstate(rng["python"])
    return int(state["epoch"])
