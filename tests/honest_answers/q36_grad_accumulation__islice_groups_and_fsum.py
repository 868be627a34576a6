"""Groups by iter(callable, sentinel) over islice; the group's loss added with math.fsum."""

import math
from collections.abc import Callable, Iterator, Sequence
from itertools import islice

import torch
import torch.nn.functional as F
from torch import nn

Batch = tuple[torch.Tensor, torch.Tensor]


def _groups(batches: Sequence[Batch], size: int) -> Iterator[tuple[Batch, ...]]:
    """Consecutive tuples of `size` batches, the last one shorter."""
    it = iter(batches)
    return iter(lambda: tuple(islice(it, size)), ())


def _step_on_group(
    model: nn.Module,
    group: tuple[Batch, ...],
    optimizer: torch.optim.Optimizer,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
) -> float:
    total = sum(inputs.shape[0] for inputs, _ in group)
    parts: list[float] = []
    for inputs, targets in group:
        share = inputs.shape[0] / total
        weighted = loss_fn(model(inputs), targets) * share
        weighted.backward()  # adds into .grad; this micro-batch's graph is freed here
        parts.append(weighted.item())
    optimizer.step()
    model.zero_grad(set_to_none=True)
    return math.fsum(parts)


def train_accumulated(
    model: nn.Module,
    batches: Sequence[tuple[torch.Tensor, torch.Tensor]],
    optimizer: torch.optim.Optimizer,
    accum_steps: int,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] = F.mse_loss,
) -> list[float]:
    if not accum_steps >= 1:
        raise ValueError(f"accum_steps must be at least 1, got {accum_steps}")
    model.zero_grad(set_to_none=True)  # whatever was there before is not ours to add to
    return [
        _step_on_group(model, group, optimizer, loss_fn)
        for group in _groups(batches, int(accum_steps))
    ]
