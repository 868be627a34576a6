"""Wrong: switches torch's deterministic algorithms but leaves cuDNN's two flags as they were."""

import os

import torch

from solutions.q41_reproducibility import make_loader, seed_everything, seed_worker


def make_deterministic(enabled=True):
    torch.use_deterministic_algorithms(enabled)
    if enabled and os.environ.get("CUBLAS_WORKSPACE_CONFIG") not in (":4096:8", ":16:8"):
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
