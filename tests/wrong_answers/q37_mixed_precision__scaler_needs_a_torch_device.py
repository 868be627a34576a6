"""Wrong: make_grad_scaler reads `device.type` without converting, so a string such as
"cpu" or "cuda:0" fails."""

import torch

from solutions.q37_mixed_precision import amp_dtype, amp_train_step  # the rest as in the reference


def make_grad_scaler(device):
    return torch.amp.GradScaler(device.type, enabled=amp_dtype(device) == torch.float16)
