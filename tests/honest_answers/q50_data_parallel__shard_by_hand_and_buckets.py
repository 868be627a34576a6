"""The shard computed by hand (a seeded randperm, padded with itertools.cycle, then strided) and
fed to the DataLoader as its sampler; gradients all-reduced in one flat bucket per device and
dtype; the global mean from one all-reduced (sum, count) pair."""

import itertools
import math

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset


def _shard(size: int, rank: int, world_size: int, seed: int) -> list[int]:
    # What DistributedSampler(shuffle=True, drop_last=False) gives: one permutation drawn alike
    # on every rank, repeated from its start up to a multiple of world_size, then strided.
    generator = torch.Generator()
    generator.manual_seed(seed)
    order = torch.randperm(size, generator=generator).tolist()
    total = math.ceil(size / world_size) * world_size
    padded = list(itertools.islice(itertools.cycle(order), total)) if order else []
    return padded[rank::world_size]


def rank_loader(
    dataset: Dataset, batch_size: int, rank: int, world_size: int, epoch: int, seed: int = 0
) -> DataLoader:
    if not 0 <= rank < world_size:
        raise ValueError(f"rank must be in [0, {world_size}), got {rank}")
    indices = _shard(len(dataset), rank, world_size, seed + epoch)  # type: ignore[arg-type]
    return DataLoader(dataset, batch_size=batch_size, sampler=indices)


def average_gradients(model: nn.Module, group: dist.ProcessGroup | None = None) -> None:
    buckets: dict[tuple[torch.device, torch.dtype], list[torch.Tensor]] = {}
    for parameter in model.parameters():
        if parameter.grad is not None:
            grad = parameter.grad
            buckets.setdefault((grad.device, grad.dtype), []).append(grad)
    size = dist.get_world_size(group)
    for grads in buckets.values():
        flat = torch.cat([grad.reshape(-1) for grad in grads])
        dist.all_reduce(flat, group=group)
        flat /= size
        for grad, part in zip(grads, flat.split([grad.numel() for grad in grads]), strict=True):
            grad.copy_(part.view_as(grad))


def global_mean(values: torch.Tensor, group: dist.ProcessGroup | None = None) -> torch.Tensor:
    wide = torch.promote_types(values.dtype, torch.float32)
    local = torch.stack(
        [values.to(wide).sum(), torch.tensor(values.numel(), dtype=wide, device=values.device)]
    )
    dist.all_reduce(local, group=group)
    total, count = local.unbind()
    return (total / count).to(values.dtype)
