"""pathlib throughout: NamedTemporaryFile(delete=False) in the checkpoint's folder, Path.replace
(os.replace underneath), Path.unlink(missing_ok=True) in a finally guarded by a flag; a flat
dict with prefixed keys and torch.device("cpu") as map_location."""

import os
import random
import tempfile
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
    destination = Path(path)
    flat: dict[str, object] = {"epoch": epoch, "rng.torch": torch.get_rng_state()}
    flat["rng.python"] = random.getstate()
    if torch.cuda.is_available():
        flat["rng.cuda"] = torch.cuda.get_rng_state_all()
    for key, owner in (("model", model), ("optimizer", optimizer), ("scheduler", scheduler)):
        flat[f"state.{key}"] = owner.state_dict()

    with tempfile.NamedTemporaryFile(
        dir=destination.parent, prefix=destination.name + ".", suffix=".part", delete=False
    ) as handle:
        temporary = Path(handle.name)
    moved = False
    try:
        torch.save(flat, temporary)
        temporary.replace(destination)
        moved = True
    finally:
        if not moved:
            temporary.unlink(missing_ok=True)


def load_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    optimizer: Optimizer,
    scheduler: LRScheduler,
) -> int:
    flat = torch.load(Path(path), map_location=torch.device("cpu"), weights_only=True)
    model.load_state_dict(flat["state.model"])
    optimizer.load_state_dict(flat["state.optimizer"])
    scheduler.load_state_dict(flat["state.scheduler"])
    torch.set_rng_state(flat["rng.torch"])
    if "rng.cuda" in flat and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(flat["rng.cuda"])
    version, internal, gauss = flat["rng.python"]
    random.setstate((version, tuple(internal), gauss))
    return int(flat["epoch"])
