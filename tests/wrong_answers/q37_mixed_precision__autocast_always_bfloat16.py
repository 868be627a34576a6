"""Wrong: autocasts to bfloat16 on every device, also where amp_dtype says float16."""

import torch

from solutions.q37_mixed_precision import amp_dtype, make_grad_scaler  # the rest


def amp_train_step(model, inputs, targets, loss_fn, optimizer, scaler):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=inputs.device.type, dtype=torch.bfloat16):
        loss = loss_fn(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().float()
