"""Dict lookups for the dtype and the scaler's switch, gradients dropped by hand to None,
torch.autograd.backward on the scaled loss, and a NaN-proof `not > 0` check."""

from collections.abc import Callable

import torch
from torch import nn

_BY_NATIVE_BF16 = {True: torch.bfloat16, False: torch.float16}


def amp_dtype(device: torch.device | str) -> torch.dtype:
    dev = torch.device(device)
    if dev.type != "cuda":
        return torch.bfloat16
    with torch.cuda.device(dev):
        native = torch.cuda.is_bf16_supported(including_emulation=False)
    return _BY_NATIVE_BF16[bool(native)]


def make_grad_scaler(device: torch.device | str) -> torch.amp.GradScaler:
    settings = {"device": torch.device(device).type, "enabled": amp_dtype(device) is torch.float16}
    return torch.amp.GradScaler(**settings)


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
    for param in model.parameters():
        param.grad = None
    with torch.autocast(inputs.device.type, dtype=amp_dtype(inputs.device)):
        loss = loss_fn(model(inputs), targets)
    torch.autograd.backward(scaler.scale(loss))
    if max_grad_norm is not None:
        scaler.unscale_(optimizer)  # true gradients before clipping
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm, foreach=None)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().to(dtype=torch.float32)
