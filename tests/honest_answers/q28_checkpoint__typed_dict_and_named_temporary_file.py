"""A TypedDict for the file, NamedTemporaryFile(delete=False) written by its file object."""

import os
import random
import tempfile
from pathlib import Path
from typing import Any, NotRequired, TypedDict

import torch
from torch import nn
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LRScheduler


class Checkpoint(TypedDict):
    model: dict[str, Any]
    optimizer: dict[str, Any]
    scheduler: dict[str, Any]
    epoch: int
    cpu_rng: torch.Tensor
    python_rng: tuple[Any, ...]
    cuda_rng: NotRequired[list[torch.Tensor]]


def _gather(
    model: nn.Module, optimizer: Optimizer, scheduler: LRScheduler, epoch: int
) -> Checkpoint:
    state = Checkpoint(
        model=model.state_dict(),
        optimizer=optimizer.state_dict(),
        scheduler=scheduler.state_dict(),
        epoch=int(epoch),
        cpu_rng=torch.get_rng_state(),
        python_rng=random.getstate(),
    )
    if torch.cuda.is_available():
        state["cuda_rng"] = torch.cuda.get_rng_state_all()  # every device's, not the current one's
    return state


def save_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
    epoch: int,
) -> None:
    target = Path(path)
    state = _gather(model, optimizer, scheduler, epoch)
    # Same folder, so os.replace is a rename within one file system; a fresh name, made exclusively.
    temp = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed by the with below)
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False
    )
    try:
        with temp:
            torch.save(state, temp)
            temp.flush()
            os.fsync(temp.fileno())
        os.replace(temp.name, target)
    except BaseException:
        # The old checkpoint is untouched; only our own temporary file goes.
        Path(temp.name).unlink(missing_ok=True)
        raise


def load_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
) -> int:
    state: Checkpoint = torch.load(Path(path), map_location="cpu", weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["cpu_rng"])
    if "cuda_rng" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda_rng"])
    random.setstate(state["python_rng"])
    return int(state["epoch"])
