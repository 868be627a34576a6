"""The forward pass through torch.func.functional_call with the model's own parameters, the
gradients cleared by hand over the optimizer's param_groups, a running (sum, count) pair."""

from collections.abc import Callable, Iterable

import torch
from torch import nn


def _clear(optimizer: torch.optim.Optimizer) -> None:
    # What optimizer.zero_grad() does by default: every parameter it holds loses its .grad.
    for group in optimizer.param_groups:
        for p in group["params"]:
            p.grad = None


def train_epoch(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    device: torch.device,
) -> float:
    model.train()
    params = dict(model.named_parameters())  # the same tensors: the step updates them
    total, seen = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        _clear(optimizer)
        outputs = torch.func.functional_call(model, params, (inputs,))
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        n = inputs.shape[0]
        if n:
            total += loss.item() * n
            seen += n
    if seen == 0:
        raise ValueError("the loader yielded no sample")
    return total / seen
