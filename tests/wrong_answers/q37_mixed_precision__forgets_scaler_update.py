"""Wrong: never calls scaler.update(), so the scale stays the same after an overflow and
every later step overflows and is skipped too."""

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
    return loss.detach().float()
