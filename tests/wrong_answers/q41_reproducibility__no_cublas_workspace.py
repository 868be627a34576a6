"""Wrong: leaves CUBLAS_WORKSPACE_CONFIG unset, so matrix products on CUDA may still vary."""

import torch

from solutions.q41_reproducibility import make_loader, seed_everything, seed_worker


def make_deterministic(enabled=True):
    torch.use_deterministic_algorithms(enabled)
    torch.backends.cudnn.deterministic = enabled
    torch.backends.cudnn.benchmark = not enabled
