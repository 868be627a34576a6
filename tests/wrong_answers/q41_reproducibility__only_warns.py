"""Wrong: asks for deterministic algorithms with warn_only=True, so a run can silently vary."""

import os

import torch

from solutions.q41_reproducibility import make_loader, seed_everything, seed_worker


def make_deterministic(enabled=True):
    torch.use_deterministic_algorithms(enabled, warn_only=True)
    torch.backends.cudnn.deterministic = enabled
    torch.backends.cudnn.benchmark = not enabled
    if enabled and os.environ.get("CUBLAS_WORKSPACE_CONFIG") not in (":4096:8", ":16:8"):
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
