"""Groups from a generator of index ranges, the model called through its bound __call__ and the
loss through functools.partial, torch.autograd.backward on each weighted loss, the group's
loss summed in a float64 tensor."""

import functools
from collections.abc import Callable, Iterator, Sequence

import torch
import torch.nn.functional as F
from torch import nn


def _groups(count: int, size: int) -> Iterator[range]:
    start = 0
    while start < count:
        yield range(start, min(start + size, count))
        start += size


def train_accumulated(
    model: nn.Module,
    batches: Sequence[tuple[torch.Tensor, torch.Tensor]],
    optimizer: torch.optim.Optimizer,
    accum_steps: int,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] = F.mse_loss,
) -> list[float]:
    if not accum_steps >= 1:
        raise ValueError(f"accum_steps={accum_steps!r}: need one micro-batch per step or more")
    forward = model.__call__  # the module call itself: hooks run
    optimizer.zero_grad(set_to_none=True)
    model.zero_grad(set_to_none=True)
    history = []
    for span in _groups(len(batches), accum_steps):
        sizes = {i: batches[i][0].shape[0] for i in span}
        whole = sum(sizes.values())
        group_loss = torch.zeros((), dtype=torch.float64)
        for i in span:
            inputs, targets = batches[i]
            score = functools.partial(loss_fn, forward(inputs))
            loss = score(targets)
            weighted = loss * (sizes[i] / whole)
            if weighted.requires_grad:
                torch.autograd.backward(weighted)
            group_loss += weighted.detach().double().cpu()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        history.append(group_loss.item())
    return history
