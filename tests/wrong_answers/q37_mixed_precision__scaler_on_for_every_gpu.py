"""Wrong: enables the scaler on every CUDA device, bfloat16 ones included."""

import torch

from solutions.q37_mixed_precision import amp_dtype, amp_train_step  # the rest


def make_grad_scaler(device):
    device = torch.device(device)
    return torch.amp.GradScaler(device.type, enabled=device.type == "cuda")
