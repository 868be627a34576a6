"""A dataclass snapshot taken and restored, saved through a mkstemp file object."""

import os
import random
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LRScheduler


@dataclass
class _Snapshot:
    model: dict[str, Any]
    optimizer: dict[str, Any]
    scheduler: dict[str, Any]
    epoch: int
    cpu_rng: torch.Tensor
    cuda_rng: list[torch.Tensor] | None
    python_rng: tuple[Any, ...]

    @classmethod
    def take(cls, model, optimizer, scheduler, epoch: int) -> "_Snapshot":
        cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None
        return cls(
            model.state_dict(),
            optimizer.state_dict(),
            scheduler.state_dict(),
            epoch,
            torch.get_rng_state(),
            cuda,
            random.getstate(),
        )

    def restore(self, model, optimizer, scheduler) -> int:
        model.load_state_dict(self.model)
        optimizer.load_state_dict(self.optimizer)
        scheduler.load_state_dict(self.scheduler)
        torch.set_rng_state(self.cpu_rng)
        if self.cuda_rng is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(self.cuda_rng)
        random.setstate(tuple(self.python_rng))
        return int(self.epoch)


def save_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
    epoch: int,
) -> None:
    target = Path(path)
    payload = asdict(_Snapshot.take(model, optimizer, scheduler, epoch))
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            torch.save(payload, stream)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def load_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
) -> int:
    with open(path, "rb") as file:
        saved = torch.load(file, map_location="cpu", weights_only=True)
    return _Snapshot(**saved).restore(model, optimizer, scheduler)
