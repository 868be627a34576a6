"""Wrong: pins the tensor but copies it blocking, so the copy cannot overlap with anything."""

import torch

from solutions.q26_to_device import (  # the rest as in the reference
    pick_device,
    place_for_training,
    to_device,
)


def copy_to(tensor, device):
    if tensor.device.type == "cpu" and torch.device(device).type != "cpu":
        return tensor.pin_memory().to(device)
    return tensor.to(device)
