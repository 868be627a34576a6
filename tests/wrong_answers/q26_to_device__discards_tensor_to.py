"""Wrong: calls x.to(device) and drops its result, as if tensors moved in place like modules."""

from solutions.q26_to_device import copy_to, pick_device, to_device  # the rest as in the reference


def place_for_training(model, inputs, device):
    model.to(device)
    for x in inputs:
        x.to(device)
    return list(inputs)
