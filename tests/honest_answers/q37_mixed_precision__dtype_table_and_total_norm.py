"""amp_dtype from a table of per-device-type choosers; clipping split into
get_total_norm and clip_grads_with_norm_; gradients reset through model.zero_grad."""

from collections.abc import Callable

import torch
from torch import nn


def _cuda_choice(device: torch.device) -> torch.dtype:
    # is_bf16_supported answers for the current GPU, so make the named one current.
    with torch.cuda.device(device):
        native = torch.cuda.is_bf16_supported(including_emulation=False)
    return torch.bfloat16 if native else torch.float16


_CHOOSERS: dict[str, Callable[[torch.device], torch.dtype]] = {"cuda": _cuda_choice}


def amp_dtype(device: torch.device | str) -> torch.dtype:
    device = torch.device(device)
    chooser = _CHOOSERS.get(device.type)
    return torch.bfloat16 if chooser is None else chooser(device)


def make_grad_scaler(device: torch.device | str) -> torch.amp.GradScaler:
    needs_scaling = amp_dtype(device) == torch.float16
    return torch.amp.GradScaler(device=torch.device(device).type, enabled=needs_scaling)


def _clip(model: nn.Module, max_grad_norm: float) -> None:
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    if not grads:
        return
    total = torch.nn.utils.get_total_norm(grads)
    torch.nn.utils.clip_grads_with_norm_(model.parameters(), max_grad_norm, total)


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
    if clipping and not max_grad_norm > 0:  # NaN fails the comparison too
        raise ValueError(f"max_grad_norm must be None or > 0, got {max_grad_norm}")

    model.zero_grad(set_to_none=True)
    device_type = inputs.device.type
    with torch.autocast(device_type=device_type, dtype=amp_dtype(inputs.device)):
        loss = loss_fn(model(inputs), targets)

    scaler.scale(loss).backward()
    if clipping:
        scaler.unscale_(optimizer)  # clip the true gradients, not the scaled ones
        _clip(model, max_grad_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().to(dtype=torch.float32)
