"""Correct: the shard computed by hand (a Subset), the gradients reduced as one bucket per
(device, dtype), the metric from a gathered [sum, count] per rank in float64."""

import math
from collections import defaultdict

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset, Subset


def rank_loader(
    dataset: Dataset, batch_size: int, rank: int, world_size: int, epoch: int, seed: int = 0
) -> DataLoader:
    if not 0 <= rank < world_size:
        raise ValueError(f"rank {rank} is outside [0, {world_size})")
    n = len(dataset)
    generator = torch.Generator().manual_seed(seed + epoch)  # what DistributedSampler draws
    order = torch.randperm(n, generator=generator)
    total = math.ceil(n / world_size) * world_size
    if total > n:  # pad by repeating from the start, as often as it takes
        order = order.repeat(math.ceil(total / n))[:total]
    shard = order[rank:total:world_size].tolist()
    return DataLoader(Subset(dataset, shard), batch_size=batch_size, shuffle=False)


def average_gradients(model: nn.Module, group: dist.ProcessGroup | None = None) -> None:
    size = dist.get_world_size(group)
    buckets: dict[tuple[torch.device, torch.dtype], list[torch.Tensor]] = defaultdict(list)
    for p in model.parameters():
        if p.grad is not None:
            buckets[(p.grad.device, p.grad.dtype)].append(p.grad)
    # Buckets in a fixed order (first appearance), the same on every rank.
    for grads in buckets.values():
        flat = torch.cat([g.reshape(-1) for g in grads])
        dist.all_reduce(flat, group=group)
        flat.div_(size)
        for g, part in zip(grads, flat.split([g.numel() for g in grads]), strict=True):
            g.copy_(part.view_as(g))


def global_mean(values: torch.Tensor, group: dist.ProcessGroup | None = None) -> torch.Tensor:
    # float64 for the sum and the count: exact counts, no float16 overflow on the way.
    local = torch.stack(
        [
            values.detach().double().sum(),
            torch.tensor(values.numel(), dtype=torch.float64).to(values.device),
        ]
    )
    gathered = [torch.empty_like(local) for _ in range(dist.get_world_size(group))]
    dist.all_gather(gathered, local, group=group)
    total, count = torch.stack(gathered).sum(0)
    return (total / count).to(values.dtype)
