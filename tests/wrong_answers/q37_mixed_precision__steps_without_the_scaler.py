"""Wrong: calls loss.backward() and optimizer.step() directly, so nothing is scaled and a
step with inf gradients is not skipped."""

import torch

from solutions.q37_mixed_precision import (  # the rest as in the reference
    amp_dtype,
    make_grad_scaler,
)


def amp_train_step(model, inputs, targets, loss_fn, optimizer, scaler):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=inputs.device.type, dtype=amp_dtype(inputs.device)):
        loss = loss_fn(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss.detach().float()
