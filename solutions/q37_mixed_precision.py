"""Kata 37: a mixed-precision training step (reference answer)."""

from collections.abc import Callable

import torch
from torch import nn


def amp_dtype(device: torch.device | str) -> torch.dtype:
    # bfloat16 keeps float32's range, so it needs no loss scaling: the choice wherever the
    # hardware runs it fast (the CPU, NVIDIA GPUs since Ampere). Older GPUs have fast
    # float16 only, which needs a GradScaler.
    device = torch.device(device)
    if device.type == "cuda":
        # Asked about this GPU (the current one answers otherwise), and natively: emulated
        # bfloat16 is slow.
        with torch.cuda.device(device):
            if not torch.cuda.is_bf16_supported(including_emulation=False):
                return torch.float16
    return torch.bfloat16


def make_grad_scaler(device: torch.device | str) -> torch.amp.GradScaler:
    device = torch.device(device)
    # A disabled scaler is a pass-through, so callers use it the same way on every device.
    return torch.amp.GradScaler(device.type, enabled=amp_dtype(device) == torch.float16)


def amp_train_step(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler,
    max_grad_norm: float | None = None,
) -> torch.Tensor:
    if max_grad_norm is not None and not max_grad_norm > 0:  # NaN fails `> 0` too
        raise ValueError(f"max_grad_norm must be None or > 0, got {max_grad_norm}")
    optimizer.zero_grad(set_to_none=True)
    # Autocast covers forward and loss only: it casts per op, so the parameters stay float32
    # and backward reuses the dtypes the forward pass chose.
    with torch.autocast(device_type=inputs.device.type, dtype=amp_dtype(inputs.device)):
        loss = loss_fn(model(inputs), targets)
    scaler.scale(loss).backward()  # scaled, so small float16 gradients do not flush to zero
    if max_grad_norm is not None:
        # Clip the true gradients: .grad holds them times the scale until unscale_ divides
        # it out (and records any inf/NaN, so step still skips); step does not unscale again.
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    scaler.step(optimizer)  # unscales first; skips the step if any gradient is inf/NaN
    scaler.update()  # shrinks the scale after a skipped step, grows it after a run of good ones
    return loss.detach().float()
