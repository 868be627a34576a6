"""Wrong: when the safe load refuses a file, loads it again with weights_only=False."""

import pickle

import torch

from solutions.q28_checkpoint import _restore, save_checkpoint


def load_checkpoint(path, model, optimizer, scheduler):
    try:
        checkpoint = torch.load(path, weights_only=True)
    except pickle.UnpicklingError:  # "an older file: it must be fine"
        checkpoint = torch.load(path, weights_only=False)
    return _restore(checkpoint, model, optimizer, scheduler)
