"""Wrong: moves a copy of the model, as if module.to returned one; the caller's model and the
optimizer holding its parameters stay behind."""

import copy

from solutions.q26_to_device import copy_to, pick_device, to_device  # the rest as in the reference


def place_for_training(model, inputs, device):
    model = copy.deepcopy(model).to(device)
    return [x.to(device) for x in inputs]
