"""Wrong: widens the returned loss to at least float32 instead of making it float32, so a
float64 loss comes back float64."""

import torch

from solutions.q37_mixed_precision import amp_dtype, make_grad_scaler


def amp_train_step(model, inputs, targets, loss_fn, optimizer, scaler):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=inputs.device.type, dtype=amp_dtype(inputs.device)):
        loss = loss_fn(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().to(torch.promote_types(loss.dtype, torch.float32))
