"""Wrong: runs only the model under autocast and calls loss_fn after the block, so the loss
is computed on the 16-bit outputs without autocast's float32 policy for losses."""

import torch

from solutions.q37_mixed_precision import amp_dtype, make_grad_scaler


def amp_train_step(model, inputs, targets, loss_fn, optimizer, scaler):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=inputs.device.type, dtype=amp_dtype(inputs.device)):
        outputs = model(inputs)
    loss = loss_fn(outputs, targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().float()
