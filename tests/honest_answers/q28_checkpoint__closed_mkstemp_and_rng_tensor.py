"""mkstemp's descriptor closed at once and torch.save given the temporary path, try/except
BaseException for the cleanup, Python's random state stored as an int64 tensor and rebuilt on
load, map_location as torch.device("cpu")."""

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
    version, internal, gauss = random.getstate()
    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "epoch": epoch,
        "torch_rng": torch.get_rng_state(),
        "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        "python_rng_version": version,
        "python_rng_internal": torch.tensor(internal, dtype=torch.int64),
        "python_rng_gauss": gauss,
    }
    fd, tmp = tempfile.mkstemp(
        prefix=".ckpt-", suffix=".tmp", dir=os.path.dirname(os.path.abspath(path))
    )
    os.close(fd)
    try:
        torch.save(state, tmp)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
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
    torch.set_rng_state(state["torch_rng"])
    if state["cuda_rng"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda_rng"])
    internal = tuple(state["python_rng_internal"].tolist())
    random.setstate((state["python_rng_version"], internal, state["python_rng_gauss"]))
    return int(state["epoch"])
