"""Wrong: builds the scaler with init_scale=2**10, not GradScaler's default settings."""

import torch

from solutions.q37_mixed_precision import amp_dtype, amp_train_step  # the rest


def make_grad_scaler(device):
    device = torch.device(device)
    return torch.amp.GradScaler(
        device.type, enabled=amp_dtype(device) == torch.float16, init_scale=2.0**10
    )
