"""Wrong: casts floating inputs to the model's dtype while moving them."""

from solutions.q26_to_device import copy_to, pick_device, to_device  # the rest


def place_for_training(model, inputs, device):
    model.to(device)
    dtype = next(model.parameters()).dtype
    return [x.to(device, dtype=dtype) if x.is_floating_point() else x.to(device) for x in inputs]
