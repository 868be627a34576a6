"""NamedTemporaryFile as a context manager, and torch.load with a map_location callable that keeps
each storage where it was deserialised (the CPU)."""

import os
import random
import tempfile

import torch


def save_checkpoint(path, model, optimizer, scheduler, epoch):
    state = dict(
        model=model.state_dict(),
        optimizer=optimizer.state_dict(),
        scheduler=scheduler.state_dict(),
        epoch=int(epoch),
        cpu_rng=torch.get_rng_state(),
        cuda_rng=torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        py_rng=random.getstate(),
    )
    folder = os.path.dirname(os.fspath(path)) or "."
    name = None
    try:
        with tempfile.NamedTemporaryFile(dir=folder, delete=False, suffix=".part") as tmp:
            name = tmp.name
            torch.save(state, tmp)
        os.replace(name, path)
    except BaseException:
        if name is not None:
            os.remove(name)
        raise


def load_checkpoint(path, model, optimizer, scheduler):
    state = torch.load(path, map_location=lambda storage, location: storage, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["cpu_rng"])
    if state["cuda_rng"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda_rng"])
    random.setstate(state["py_rng"])
    return int(state["epoch"])
