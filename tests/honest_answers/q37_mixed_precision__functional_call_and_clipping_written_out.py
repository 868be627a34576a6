"""The forward pass through torch.func.functional_call with the model's own parameters, the
gradients discarded by hand, the clipping written out (per-tensor norms, their norm, one
factor clamped at 1, multiplied in place), a dtype chosen with a conditional expression."""

from collections.abc import Callable

import torch
from torch import nn


def amp_dtype(device: torch.device | str) -> torch.dtype:
    device = device if isinstance(device, torch.device) else torch.device(device)
    if device.type == "cuda":
        with torch.cuda.device(device):
            return (
                torch.bfloat16
                if torch.cuda.is_bf16_supported(including_emulation=False)
                else torch.float16
            )
    return torch.bfloat16


def make_grad_scaler(device: torch.device | str) -> torch.amp.GradScaler:
    wants_scaling = amp_dtype(device) == torch.float16
    return torch.amp.GradScaler(device=torch.device(device).type, enabled=wants_scaling)


def _clip_(params: list[nn.Parameter], max_norm: float) -> None:
    """What nn.utils.clip_grad_norm_ does: one factor max_norm / (total + 1e-6), at most 1."""
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return
    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    factor = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(factor.to(g.device))


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
        raise ValueError(f"max_grad_norm={max_grad_norm!r}: expected None or a number > 0")
    params = list(model.parameters())
    for p in params:
        p.grad = None
    named = dict(model.named_parameters())
    with torch.autocast(inputs.device.type, dtype=amp_dtype(inputs.device)):
        outputs = torch.func.functional_call(model, named, (inputs,))
        loss = loss_fn(outputs, targets)
    scaler.scale(loss).backward()
    if max_grad_norm is not None:
        scaler.unscale_(optimizer)
        _clip_(params, max_grad_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().to(torch.float32)
