"""Wrong: loads with a plain torch.load(path), relying on the default weights_only=True,
which TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1 in the environment turns off."""

import torch

from solutions.q28_checkpoint import _restore, save_checkpoint  # the rest as in the reference


def load_checkpoint(path, model, optimizer, scheduler):
    return _restore(torch.load(path), model, optimizer, scheduler)
