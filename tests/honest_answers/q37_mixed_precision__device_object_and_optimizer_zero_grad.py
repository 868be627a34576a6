"""torch.device normalisation, a conditional dtype, math checks, float() of the loss."""

import math
from collections.abc import Callable

import torch
from torch import nn


def amp_dtype(device: torch.device | str) -> torch.dtype:
    dev = torch.device(device)
    if dev.type != "cuda":
        return torch.bfloat16
    with torch.cuda.device(dev):
        native = torch.cuda.is_bf16_supported(including_emulation=False)
    return torch.bfloat16 if native else torch.float16


def make_grad_scaler(device: torch.device | str) -> torch.amp.GradScaler:
    dev = torch.device(device)
    return torch.amp.GradScaler(dev.type, enabled=amp_dtype(dev) == torch.float16)


def amp_train_step(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler,
    max_grad_norm: float | None = None,
) -> torch.Tensor:
    clipping = max_grad_norm is not None
    if clipping and (math.isnan(max_grad_norm) or max_grad_norm <= 0):  # type: ignore[arg-type]
        raise ValueError(f"max_grad_norm must be None or > 0, got {max_grad_norm}")
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=inputs.device.type, dtype=amp_dtype(inputs.device)):
        loss = loss_fn(model(inputs), targets)
    scaler.scale(loss).backward()
    if clipping:
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)  # type: ignore[arg-type]
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().float()
