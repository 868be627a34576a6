"""torch.amp.autocast class, trainable gradients zeroed in place (a frozen one's set to
None), clipping split into nn.utils.get_total_norm and clip_grads_with_norm_, math.isnan in
the check."""

import math
from collections.abc import Callable

import torch
from torch import nn


def amp_dtype(device: torch.device | str) -> torch.dtype:
    dev = device if isinstance(device, torch.device) else torch.device(device)
    if dev.type == "cuda":
        with torch.cuda.device(dev):
            if not torch.cuda.is_bf16_supported(including_emulation=False):
                return torch.float16
    return torch.bfloat16


def make_grad_scaler(device: torch.device | str) -> torch.amp.GradScaler:
    scaler = torch.amp.GradScaler(
        torch.device(device).type, enabled=amp_dtype(device) == torch.float16
    )
    return scaler


def amp_train_step(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler,
    max_grad_norm: float | None = None,
) -> torch.Tensor:
    if max_grad_norm is not None and (math.isnan(max_grad_norm) or max_grad_norm <= 0):
        raise ValueError("max_grad_norm must be None or a number > 0")
    for param in model.parameters():
        if param.requires_grad and param.grad is not None:
            param.grad.zero_()
        else:
            param.grad = None  # a frozen one's zero .grad would still be stepped
    dtype = amp_dtype(inputs.device)
    with torch.amp.autocast(device_type=inputs.device.type, dtype=dtype):
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
    scaler.scale(loss).backward()
    if max_grad_norm is not None:
        scaler.unscale_(optimizer)
        grads = [p.grad for p in model.parameters() if p.grad is not None]
        total = nn.utils.get_total_norm(grads)
        nn.utils.clip_grads_with_norm_(model.parameters(), max_grad_norm, total)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().float()
