"""Wrong: switches cuDNN off for determinism instead of asking it for deterministic kernels."""

import os

import torch

from solutions.q41_reproducibility import make_loader, seed_everything, seed_worker  # the rest


def make_deterministic(enabled=True):
    torch.use_deterministic_algorithms(enabled)
    torch.backends.cudnn.deterministic = enabled
    torch.backends.cudnn.benchmark = not enabled
    torch.backends.cudnn.enabled = not enabled
    if enabled and os.environ.get("CUBLAS_WORKSPACE_CONFIG") not in (":4096:8", ":16:8"):
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
