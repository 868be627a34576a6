"""torch.autocast used as a decorator on an inner closure that runs the forward pass and the
loss; the scaler's device type from torch.device(...).type; the loss returned via .float()."""

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
    if max_grad_norm is not None and not max_grad_norm > 0:
        raise ValueError(f"max_grad_norm must be None or > 0, got {max_grad_norm}")
    optimizer.zero_grad(set_to_none=True)
    model.zero_grad(set_to_none=True)

    @torch.autocast(device_type=inputs.device.type, dtype=amp_dtype(inputs.device))
    def forward() -> torch.Tensor:
        return loss_fn(model(inputs), targets)

    loss = forward()  # backward below runs outside the autocast region
    scaler.scale(loss).backward()
    if max_grad_norm is not None:
        scaler.unscale_(optimizer)  # clip the true gradients, not the scaled ones
        nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().float()
