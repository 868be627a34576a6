"""Wrong: picks bfloat16 on every CUDA device, which older GPUs (before Ampere) run slowly
or not at all; there float16 with a scaler is the choice."""

import torch

from solutions.q37_mixed_precision import amp_train_step, make_grad_scaler


def amp_dtype(device):
    return torch.bfloat16
