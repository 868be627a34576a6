"""Early returns on the device type; gradients reset by hand; autocast entered via an ExitStack."""

import contextlib
from collections.abc import Callable

import torch
from torch import nn


def _cuda_bf16(device: torch.device) -> bool:
    with torch.cuda.device(device):
        return torch.cuda.is_bf16_supported(including_emulation=False)


def amp_dtype(device: torch.device | str) -> torch.dtype:
    device = torch.device(device)
    if device.type != "cuda":
        return torch.bfloat16
    return torch.bfloat16 if _cuda_bf16(device) else torch.float16


def make_grad_scaler(device: torch.device | str) -> torch.amp.GradScaler:
    needs_scaling = amp_dtype(device) is torch.float16
    return torch.amp.GradScaler(torch.device(device).type, enabled=needs_scaling)


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
        raise ValueError("max_grad_norm must be None or positive")
    for param in model.parameters():
        param.grad = None
    autocast = torch.autocast(inputs.device.type, dtype=amp_dtype(inputs.device))
    with contextlib.ExitStack() as stack:
        stack.enter_context(autocast)
        loss = loss_fn(model(inputs), targets)
    scaler.scale(loss).backward()
    if max_grad_norm is not None:
        scaler.unscale_(optimizer)
        grads = [param.grad for param in model.parameters() if param.grad is not None]
        norms = torch.stack([torch.linalg.vector_norm(grad) for grad in grads])
        factor = torch.clamp(max_grad_norm / (torch.linalg.vector_norm(norms) + 1e-6), max=1.0)
        for grad in grads:
            grad.mul_(factor)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().to(torch.float32)
