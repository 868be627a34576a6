"""DistributedSampler with an explicit rank check, a per-gradient all_reduce then div_, and
the metric's sum and count stacked into one tensor for a single all_reduce."""

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler


def rank_loader(
    dataset: Dataset, batch_size: int, rank: int, world_size: int, epoch: int, seed: int = 0
) -> DataLoader:
    if not 0 <= rank < world_size:
        raise ValueError(f"rank {rank} is not in [0, {world_size})")
    sampler = DistributedSampler(
        dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=seed
    )
    sampler.set_epoch(epoch)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=0)


def average_gradients(model: nn.Module, group: dist.ProcessGroup | None = None) -> None:
    size = dist.get_world_size(group)
    for param in model.parameters():
        if param.grad is None:
            continue
        dist.all_reduce(param.grad, op=dist.ReduceOp.SUM, group=group)
        param.grad.div_(size)


def global_mean(values: torch.Tensor, group: dist.ProcessGroup | None = None) -> torch.Tensor:
    wide = torch.float64 if values.dtype == torch.float64 else torch.float32
    stats = torch.stack(
        [
            values.sum(dtype=wide),
            torch.tensor(values.numel(), dtype=wide, device=values.device),
        ]
    )
    dist.all_reduce(stats, group=group)
    total, count = stats.unbind()
    return (total / count).to(values.dtype)
