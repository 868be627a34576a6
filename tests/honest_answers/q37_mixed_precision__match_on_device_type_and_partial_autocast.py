"""A match on the device's type; the autocast context built by functools.partial."""

import math
from collections.abc import Callable
from functools import partial

import torch
from torch import nn


def amp_dtype(device: torch.device | str) -> torch.dtype:
    device = torch.device(device)
    match device.type:
        case "cuda":
            with torch.cuda.device(device):  # "cuda" without an index: the current GPU
                native = torch.cuda.is_bf16_supported(including_emulation=False)
            return torch.bfloat16 if native else torch.float16
        case _:
            return torch.bfloat16


def make_grad_scaler(device: torch.device | str) -> torch.amp.GradScaler:
    kind = torch.device(device).type
    return torch.amp.GradScaler(kind, enabled=amp_dtype(device) == torch.float16)


def _check_norm(max_grad_norm: float | None) -> None:
    if max_grad_norm is None:
        return
    if math.isnan(max_grad_norm) or max_grad_norm <= 0:
        raise ValueError(f"max_grad_norm must be None or > 0, got {max_grad_norm}")


def amp_train_step(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler,
    max_grad_norm: float | None = None,
) -> torch.Tensor:
    _check_norm(max_grad_norm)
    optimizer.zero_grad(set_to_none=True)
    autocast = partial(torch.autocast, device_type=inputs.device.type)
    with autocast(dtype=amp_dtype(inputs.device)):
        loss = loss_fn(model(inputs), targets)
    scaler.scale(loss).backward()
    if max_grad_norm is not None:
        scaler.unscale_(optimizer)  # clip the true gradients, not the scaled ones
        nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().to(torch.float32)
