"""Wrong: copies non-blocking to every device but the CPU, between devices too."""

import torch

from solutions.q26_to_device import pick_device, place_for_training, to_device  # the rest


def copy_to(tensor, device):
    target = torch.device(device)
    if target.type == "cpu":
        target = torch.device("cpu")
    if tensor.device.type == "cpu" and target.type not in ("cpu", "meta"):
        return tensor.pin_memory().to(target, non_blocking=True)
    return tensor.to(target, non_blocking=target.type != "cpu")
