"""Wrong: returns device 0 of the accelerator's kind, not the current one."""

import torch

from solutions.q26_to_device import copy_to, place_for_training, to_device  # the rest


def pick_device():
    if torch.accelerator.is_available():
        accelerator = torch.accelerator.current_accelerator()
        if accelerator is not None:
            return torch.device(accelerator.type, 0)
    return torch.device("cpu")
