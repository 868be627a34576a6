"""Wrong: asks torch.cuda alone, so every other accelerator (MPS, XPU, ...) trains on the CPU."""

import torch

from solutions.q26_to_device import (  # the rest as in the reference
    copy_to,
    place_for_training,
    to_device,
)


def pick_device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
