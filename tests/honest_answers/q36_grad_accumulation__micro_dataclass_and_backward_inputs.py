"""Groups built up front as lists of frozen dataclasses holding each micro-batch's share of
its group; backward(inputs=...) limited to the parameters that require grad;
optimizer.zero_grad(set_to_none=True) before the first and after every step."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class _Micro:
    inputs: torch.Tensor
    targets: torch.Tensor
    share: float


def _groups(
    batches: Sequence[tuple[torch.Tensor, torch.Tensor]], accum_steps: int
) -> list[list[_Micro]]:
    groups: list[list[_Micro]] = []
    for start in range(0, len(batches), accum_steps):
        chunk = batches[start : start + accum_steps]
        samples = sum(len(inputs) for inputs, _ in chunk)
        groups.append([_Micro(x, y, len(x) / samples) for x, y in chunk])
    return groups


def train_accumulated(
    model: nn.Module,
    batches: Sequence[tuple[torch.Tensor, torch.Tensor]],
    optimizer: torch.optim.Optimizer,
    accum_steps: int,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] = F.mse_loss,
) -> list[float]:
    """One optimizer step per group of accum_steps micro-batches."""
    if accum_steps < 1:
        raise ValueError(f"accum_steps must be >= 1, got {accum_steps}")
    optimizer.zero_grad(set_to_none=True)
    # None (every leaf) only when nothing is trainable: backward(inputs=[]) raises.
    trainable = [p for p in model.parameters() if p.requires_grad] or None
    losses = []
    for group in _groups(batches, accum_steps):
        total = 0.0
        for micro in group:
            loss = loss_fn(model(micro.inputs), micro.targets)
            (micro.share * loss).backward(inputs=trainable)
            total += micro.share * loss.item()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(total)
    return losses
