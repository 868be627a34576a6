"""An exclusive open ("xb") under a uuid4 name (os.urandom: no generator of torch or random drawn);
Path.replace (os.replace underneath); CUDA states always listed (empty without CUDA); a callable
map_location that keeps every storage on the CPU."""

import os
import random
import uuid
from pathlib import Path

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
    final = Path(path)
    state = {
        "epoch": epoch,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "torch_rng": torch.get_rng_state(),
        # get_rng_state_all lists every CUDA device: [] where there is none.
        "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
        "python_rng": random.getstate(),
    }
    partial = final.with_name(f".{final.name}.{uuid.uuid4().hex}.partial")
    stream = partial.open("xb")
    try:
        try:
            torch.save(state, stream)
            stream.flush()
            os.fsync(stream.fileno())
        finally:
            stream.close()
        partial.replace(final)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def load_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
) -> int:
    state = torch.load(path, map_location=lambda storage, _where: storage, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["torch_rng"])
    if state["cuda_rng"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda_rng"])
    random.setstate(state["python_rng"])
    return int(state["epoch"])
