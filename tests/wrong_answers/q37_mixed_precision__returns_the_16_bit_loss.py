"""Wrong: returns the loss as loss_fn produced it, which can be a 16-bit tensor."""

import torch

from solutions.q37_mixed_precision import (  # the rest as in the reference
    amp_dtype,
    make_grad_scaler,
)


def amp_train_step(model, inputs, targets, loss_fn, optimizer, scaler):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=inputs.device.type, dtype=amp_dtype(inputs.device)):
        loss = loss_fn(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach()
