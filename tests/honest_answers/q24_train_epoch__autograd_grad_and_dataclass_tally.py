"""torch.autograd.grad over the optimizer's trainable parameters, gradients assigned to
.grad by hand before the step, and a dataclass accumulator in float64 tensors."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class _Tally:
    weighted: torch.Tensor
    samples: int = 0

    def add(self, loss: torch.Tensor, n: int) -> None:
        # A detached CPU float64 copy: no graph kept, no rounding in the loss's dtype.
        self.weighted += loss.detach().to("cpu", torch.float64) * n
        self.samples += n


def train_epoch(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    device: torch.device,
) -> float:
    model.train()
    trainable = [p for group in optimizer.param_groups for p in group["params"] if p.requires_grad]
    # Every .grad from before the call goes, the frozen parameters' too: the assignments
    # below reach only the trainable ones, and a step would apply a stale one left elsewhere.
    optimizer.zero_grad()
    tally = _Tally(torch.zeros((), dtype=torch.float64))
    for inputs, targets in loader:
        inputs = inputs.to(device)
        targets = targets.to(device)
        loss = loss_fn(model(inputs), targets)
        grads = torch.autograd.grad(loss, trainable, allow_unused=True)
        for p, g in zip(trainable, grads, strict=True):
            p.grad = g  # this batch's gradient alone (None where p was unused)
        optimizer.step()
        tally.add(loss, inputs.shape[0])
    if tally.samples == 0:
        raise ValueError("the loader yielded no sample")
    return (tally.weighted / tally.samples).item()
