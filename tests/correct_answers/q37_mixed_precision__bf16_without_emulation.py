"""Correct: device policy in one place; the step written as three phases."""

from collections.abc import Callable

import torch
from torch import nn


def _as_device(device: torch.device | str) -> torch.device:
    return device if isinstance(device, torch.device) else torch.device(device)


def amp_dtype(device: torch.device | str) -> torch.dtype:
    if _as_device(device).type != "cuda":
        return torch.bfloat16
    # "Natively": emulated bfloat16 (pre-Ampere GPUs) does not count.
    native = torch.cuda.is_bf16_supported(including_emulation=False)
    return torch.bfloat16 if native else torch.float16


def make_grad_scaler(device: torch.device | str) -> torch.amp.GradScaler:
    dev = _as_device(device)
    return torch.amp.GradScaler(dev.type, enabled=amp_dtype(dev) is torch.float16)


def amp_train_step(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler,
) -> torch.Tensor:
    for group in optimizer.param_groups:
        for p in group["params"]:
            p.grad = None

    dev = inputs.device
    with torch.autocast(device_type=dev.type, dtype=amp_dtype(dev)):
        loss = loss_fn(model(inputs), targets)

    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().to(torch.float32)
