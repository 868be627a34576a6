"""An atomic_write context manager (contextlib) around
tempfile.NamedTemporaryFile(dir=..., delete=False) that replaces on success and removes the
temporary file on any exception; the state a flat dict, its CUDA entry None without CUDA."""

import contextlib
import os
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import torch
from torch import nn
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LRScheduler


@contextlib.contextmanager
def _atomic_write(path: Path) -> Iterator[IO[bytes]]:
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed below, kept on success
        mode="wb", dir=path.parent, prefix=f"{path.name}.", suffix=".partial", delete=False
    )
    temp = Path(handle.name)
    try:
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def save_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
    epoch: int,
) -> None:
    checkpoint = {
        "epoch": epoch,
        "model_state": model.state_dict(),
        "optimizer_state": optimizer.state_dict(),
        "scheduler_state": scheduler.state_dict(),
        "torch_rng_state": torch.get_rng_state(),
        "cuda_rng_states": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        "python_rng_state": random.getstate(),
    }
    with _atomic_write(Path(path)) as handle:
        torch.save(checkpoint, handle)


def load_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
) -> int:
    checkpoint = torch.load(Path(path), weights_only=True, map_location="cpu")
    model.load_state_dict(checkpoint["model_state"])
    optimizer.load_state_dict(checkpoint["optimizer_state"])
    scheduler.load_state_dict(checkpoint["scheduler_state"])
    torch.set_rng_state(checkpoint["torch_rng_state"])
    if checkpoint["cuda_rng_states"] is not None:
        torch.cuda.set_rng_state_all(checkpoint["cuda_rng_states"])
    random.setstate(checkpoint["python_rng_state"])
    return int(checkpoint["epoch"])
