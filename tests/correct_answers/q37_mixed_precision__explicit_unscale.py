"""Correct: trainable gradients zeroed in place (a frozen one's set to None), an explicit
unscale_ before the step, clipped with get_total_norm and clip_grads_with_norm_ over the
optimizer's parameters."""

from collections.abc import Callable

import torch
from torch import nn


def amp_dtype(device: torch.device | str) -> torch.dtype:
    where = torch.device(device)
    if where.type != "cuda":
        return torch.bfloat16
    with torch.cuda.device(where):
        native = torch.cuda.is_bf16_supported(including_emulation=False)
    return torch.bfloat16 if native else torch.float16


def make_grad_scaler(device: torch.device | str) -> torch.amp.GradScaler:
    kind = torch.device(device).type
    return torch.amp.GradScaler(device=kind, enabled=amp_dtype(device) is torch.float16)


def amp_train_step(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler,
    max_grad_norm: float | None = None,
) -> torch.Tensor:
    if max_grad_norm is not None and not (max_grad_norm > 0):
        raise ValueError("max_grad_norm must be positive")
    for group in optimizer.param_groups:
        for p in group["params"]:
            if p.grad is not None and p.requires_grad:
                p.grad.zero_()
            else:
                p.grad = None  # a zero .grad is still stepped (weight decay)
    with torch.autocast(inputs.device.type, dtype=amp_dtype(inputs.device)):
        out = model(inputs)
        loss = loss_fn(out, targets)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    if max_grad_norm is not None:
        params = [p for group in optimizer.param_groups for p in group["params"]]
        total = torch.nn.utils.get_total_norm([p.grad for p in params if p.grad is not None])
        torch.nn.utils.clip_grads_with_norm_(params, max_grad_norm, total)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().to(torch.float32)
