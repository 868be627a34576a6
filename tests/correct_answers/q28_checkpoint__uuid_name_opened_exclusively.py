"""A uuid4 temporary name opened with mode "xb", the file object handed to torch.save."""

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
    target = Path(path)
    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "epoch": int(epoch),
        "torch_rng": torch.get_rng_state(),
        "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        "python_rng": random.getstate(),
    }
    temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    with open(temporary, "xb") as handle:  # "x": a fresh name or an error, never an overwrite
        try:
            torch.save(state, handle)
            handle.flush()
            os.fsync(handle.fileno())
        except BaseException:
            handle.close()
            os.remove(temporary)
            raise
    try:
        os.replace(temporary, target)
    except BaseException:
        os.remove(temporary)
        raise


def load_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
) -> int:
    state = torch.load(path, weights_only=True, map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["torch_rng"])
    if state["cuda_rng"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda_rng"])
    version, internal, gauss = state["python_rng"]
    random.setstate((version, tuple(internal), gauss))
    return int(state["epoch"])
