"""Wrong: when the safe load refuses a file, loads it again with weights_only=False."""

import pickle
import random

import torch

from solutions.q28_checkpoint import save_checkpoint


def load_checkpoint(path, model, optimizer, scheduler):
    try:
        checkpoint = torch.load(path, weights_only=True)
    except pickle.UnpicklingError:  # "an older file: it must be fine"
        checkpoint = torch.load(path, weights_only=False)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    scheduler.load_state_dict(checkpoint["scheduler"])
    rng = checkpoint["rng"]
    torch.set_rng_state(rng["torch"])
    if rng["cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["cuda"])
    random.setstate(rng["python"])
    return checkpoint["epoch"]
