"""Wrong: takes the accelerator torch was built for without asking whether it is available,
so a CUDA build on a machine without a GPU picks cuda."""

import torch

from solutions.q26_to_device import (  # the rest as in the reference
    copy_to,
    place_for_training,
    to_device,
)


def pick_device():
    return torch.accelerator.current_accelerator() or torch.device("cpu")
