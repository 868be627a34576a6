"""Correct: an exclusive open(..., "xb") under a random name beside the target, cleanup in a
finally that removes only the file it created."""

import os
import random
import secrets

import torch


def save_checkpoint(path, model, optimizer, scheduler, epoch):
    state = dict(
        epoch=int(epoch),
        model=model.state_dict(),
        optimizer=optimizer.state_dict(),
        scheduler=scheduler.state_dict(),
        torch_rng=torch.get_rng_state(),
        cuda_rng=torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        python_rng=random.getstate(),
    )
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    temporary = os.path.join(folder, f"{os.path.basename(target)}.{secrets.token_hex(8)}.part")
    handle = open(temporary, "xb")  # noqa: SIM115 (exclusive; closed by the with below)
    done = False
    try:
        with handle:
            torch.save(state, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
        done = True
    finally:
        if not done:
            os.remove(temporary)


def load_checkpoint(path, model, optimizer, scheduler):
    state = torch.load(os.fspath(path), map_location=torch.device("cpu"), weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["torch_rng"])
    if state["cuda_rng"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda_rng"])
    random.setstate(state["python_rng"])
    return int(state["epoch"])
