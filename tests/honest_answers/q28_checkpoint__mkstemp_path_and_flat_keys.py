"""tempfile.mkstemp's descriptor closed at once and torch.save given the temporary path itself;
flat keys; map_location=torch.device("cpu"), and an explicit CPU check of the RNG states."""

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
    path = os.fspath(path)
    checkpoint = dict(
        model_state=model.state_dict(),
        optimizer_state=optimizer.state_dict(),
        scheduler_state=scheduler.state_dict(),
        epoch=epoch,
        cpu_rng_state=torch.get_rng_state(),
        cuda_rng_states=torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        python_rng_state=random.getstate(),
    )
    folder = os.path.dirname(os.path.abspath(path))
    fd, temp_path = tempfile.mkstemp(dir=folder, suffix=".partial")
    os.close(fd)  # torch.save opens the path itself
    try:
        torch.save(checkpoint, temp_path)
        os.replace(temp_path, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(temp_path)
        raise


def load_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
) -> int:
    checkpoint = torch.load(path, map_location=torch.device("cpu"), weights_only=True)
    model.load_state_dict(checkpoint["model_state"])
    optimizer.load_state_dict(checkpoint["optimizer_state"])
    scheduler.load_state_dict(checkpoint["scheduler_state"])
    cpu_state = checkpoint["cpu_rng_state"]
    assert cpu_state.device.type == "cpu"
    torch.set_rng_state(cpu_state)
    if checkpoint["cuda_rng_states"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(checkpoint["cuda_rng_states"])
    random.setstate(checkpoint["python_rng_state"])
    return int(checkpoint["epoch"])
