"""Wrong: picks float16 on every CUDA device, with loss scaling, where a GPU that runs
bfloat16 needs neither."""

import torch

from solutions.q37_mixed_precision import amp_train_step, make_grad_scaler


def amp_dtype(device):
    return torch.float16 if torch.device(device).type == "cuda" else torch.bfloat16
