"""Wrong: uses float16 and an enabled scaler on every device, as on CUDA, instead of
bfloat16 without scaling on the CPU."""

import torch


def amp_dtype(device):
    return torch.float16


def make_grad_scaler(device):
    return torch.amp.GradScaler(torch.device(device).type)


def amp_train_step(model, inputs, targets, loss_fn, optimizer, scaler):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=inputs.device.type, dtype=amp_dtype(inputs.device)):
        loss = loss_fn(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().float()
