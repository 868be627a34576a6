"""The shard computed by hand (randperm from seed + epoch, padding by repetition, a strided
slice), gradients divided first and reduced in one flat bucket per device and dtype, and a
metric from two all_reduces (sum in the wide dtype, count in int64)."""

import math
from collections import defaultdict

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset


def rank_loader(
    dataset: Dataset, batch_size: int, rank: int, world_size: int, epoch: int, seed: int = 0
) -> DataLoader:
    if rank < 0 or rank >= world_size:
        raise ValueError("rank must be in [0, world_size)")
    n = len(dataset)  # type: ignore[arg-type]
    generator = torch.Generator().manual_seed(seed + epoch)
    order = torch.randperm(n, generator=generator).tolist()
    total = math.ceil(n / world_size) * world_size
    repeats = math.ceil(total / n) if n else 0
    padded = (order * repeats)[:total]
    shard = padded[rank:total:world_size]
    return DataLoader(dataset, batch_size=batch_size, sampler=shard, shuffle=False)


def average_gradients(model: nn.Module, group: dist.ProcessGroup | None = None) -> None:
    world = dist.get_world_size(group=group)
    buckets: defaultdict[tuple[torch.device, torch.dtype], list[torch.Tensor]] = defaultdict(list)
    for p in model.parameters():
        if p.grad is not None:
            buckets[(p.grad.device, p.grad.dtype)].append(p.grad)
    for grads in buckets.values():
        flat = torch.cat([g.reshape(-1) for g in grads])
        flat.div_(world)  # divided first, as DistributedDataParallel does
        dist.all_reduce(flat, group=group)
        for g, chunk in zip(grads, flat.split([g.numel() for g in grads])):
            g.copy_(chunk.view_as(g))


def global_mean(values: torch.Tensor, group: dist.ProcessGroup | None = None) -> torch.Tensor:
    acc = torch.float64 if values.dtype is torch.float64 else torch.float32
    local_sum = values.to(acc).sum()
    local_count = torch.tensor([values.numel()], dtype=torch.int64, device=values.device)
    dist.all_reduce(local_sum, group=group)
    dist.all_reduce(local_count, group=group)
    mean = local_sum / local_count.to(acc).squeeze(0)
    return mean.to(values.dtype)
