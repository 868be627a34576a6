"""Wrong: backward runs inside the autocast block."""

from collections.abc import Callable

import torch
from torch import nn

from solutions.q37_mixed_precision import (  # the rest as in the reference
    amp_dtype,
    make_grad_scaler,
)


def amp_train_step(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler,
) -> torch.Tensor:
    optimizer.zero_grad(set_to_none=True)
    # Autocast covers forward and loss only: it casts per op, so the parameters stay float32
    # and backward reuses the dtypes the forward pass chose.
    with torch.autocast(device_type=inputs.device.type, dtype=amp_dtype(inputs.device)):
        loss = loss_fn(model(inputs), targets)
        scaler.scale(loss).backward()  # scaled, so small float16 gradients do not flush to zero
    scaler.step(optimizer)  # unscales first; skips the step if any gradient is inf/NaN
    scaler.update()  # shrinks the scale after a skipped step, grows it after a run of good ones
    return loss.detach().float()
