"""Wrong: compares tensor.device with the target as given, so "sim" copies a sim:0 tensor."""

import torch

from solutions.q26_to_device import pick_device, place_for_training, to_device  # the rest


def copy_to(tensor, device):
    target = torch.device(device)
    if tensor.device == target:
        return tensor
    if tensor.device.type == target.type and target.type != "cpu":
        return torch.empty_like(tensor, device=target).copy_(tensor)
    if tensor.device.type == "cpu" and target.type not in ("cpu", "meta"):
        return tensor.pin_memory().to(target, non_blocking=True)
    return tensor.to(target)
