"""A match on the device type; the forward an inner function decorated by torch.autocast."""

from collections.abc import Callable

import torch
from torch import nn


def amp_dtype(device: torch.device | str) -> torch.dtype:
    device = torch.device(device)
    match device.type:
        case "cuda":
            with torch.cuda.device(device):
                native = torch.cuda.is_bf16_supported(including_emulation=False)
            return torch.bfloat16 if native else torch.float16
        case _:
            return torch.bfloat16


def make_grad_scaler(device: torch.device | str) -> torch.amp.GradScaler:
    kind = torch.device(device).type
    return torch.amp.GradScaler(kind, enabled=amp_dtype(device) is torch.float16)


def amp_train_step(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler,
    max_grad_norm: float | None = None,
) -> torch.Tensor:
    match max_grad_norm:
        case None:
            pass
        case float() | int() if max_grad_norm > 0:
            pass
        case _:
            raise ValueError(f"max_grad_norm={max_grad_norm}: give None or a positive number")
    for param in model.parameters():
        param.grad = None

    @torch.autocast(device_type=inputs.device.type, dtype=amp_dtype(inputs.device))
    def forward() -> torch.Tensor:
        return loss_fn(model(inputs), targets)

    loss = forward()
    scaler.scale(loss).backward()
    if max_grad_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_grad_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().to(torch.float32)
