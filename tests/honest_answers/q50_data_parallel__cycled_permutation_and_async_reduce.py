"""The shard by randperm and itertools.cycle; async all_reduce; sum and count in one."""

import math
from itertools import cycle, islice

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset


def _shard(length: int, rank: int, world_size: int, seed: int) -> list[int]:
    generator = torch.Generator()
    generator.manual_seed(seed)
    order = torch.randperm(length, generator=generator).tolist()
    # Padded by repeating the permutation from its start, up to a multiple of world_size.
    padded = list(islice(cycle(order), math.ceil(length / world_size) * world_size))
    return padded[rank::world_size]


def rank_loader(
    dataset: Dataset, batch_size: int, rank: int, world_size: int, epoch: int, seed: int = 0
) -> DataLoader:
    if not 0 <= rank < world_size:
        raise ValueError(f"rank must be in [0, {world_size}), got {rank}")
    indices = _shard(len(dataset), rank, world_size, seed + epoch)
    return DataLoader(dataset, batch_size=batch_size, sampler=indices)


def average_gradients(model: nn.Module, group: dist.ProcessGroup | None = None) -> None:
    size = dist.get_world_size(group)
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    pending = [dist.all_reduce(grad, group=group, async_op=True) for grad in grads]
    for work, grad in zip(pending, grads, strict=True):
        work.wait()
        grad.div_(size)  # in place, in the gradient's own dtype


def global_mean(values: torch.Tensor, group: dist.ProcessGroup | None = None) -> torch.Tensor:
    accumulate = torch.promote_types(values.dtype, torch.float32)
    totals = torch.stack(
        (
            values.sum(dtype=accumulate),
            torch.tensor(values.numel(), dtype=accumulate, device=values.device),
        )
    )
    dist.all_reduce(totals, group=group)
    total, count = totals.unbind()
    return (total / count).to(values.dtype)
