"""Wrong: make_deterministic also reseeds every generator with 0."""

import os

import torch

from solutions.q41_reproducibility import make_loader, seed_everything, seed_worker  # the rest


def make_deterministic(enabled=True):
    torch.use_deterministic_algorithms(enabled)
    torch.backends.cudnn.deterministic = enabled
    torch.backends.cudnn.benchmark = not enabled
    if enabled:
        seed_everything(0)
    if enabled and os.environ.get("CUBLAS_WORKSPACE_CONFIG") not in (":4096:8", ":16:8"):
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
