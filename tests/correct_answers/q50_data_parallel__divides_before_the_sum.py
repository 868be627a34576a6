"""Correct: each gradient divided by the group's size before the all-reduce, as DDP does."""

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler


def rank_loader(
    dataset: Dataset, batch_size: int, rank: int, world_size: int, epoch: int, seed: int = 0
) -> DataLoader:
    # rank and num_replicas given: no process group needed (the sampler would ask the
    # default group otherwise). The sampler shuffles, so the DataLoader must not.
    sampler = DistributedSampler(
        dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=seed
    )
    sampler.set_epoch(epoch)  # a new permutation each epoch, the same on every rank
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)


def average_gradients(model: nn.Module, group: dist.ProcessGroup | None = None) -> None:
    size = dist.get_world_size(group)
    for param in model.parameters():
        if param.grad is not None:
            param.grad /= size  # each rank's share first, then the sum: DDP's order
            dist.all_reduce(param.grad, group=group)


def global_mean(values: torch.Tensor, group: dist.ProcessGroup | None = None) -> torch.Tensor:
    # Sum and count over all ranks; a mean of the ranks' means would weigh a small shard
    # like a big one (and an empty shard's mean is nan).
    # As torch.mean: the sum in float32 at least (a float16 sum overflows at 65504), the
    # count as an integer (exact at any size), one rounding to values' dtype at the end.
    total = values.sum(dtype=torch.promote_types(values.dtype, torch.float32))
    count = torch.tensor(values.numel(), device=values.device)
    # all_reduce works in place on the tensors handed to it: these two, not `values`.
    dist.all_reduce(total, group=group)
    dist.all_reduce(count, group=group)
    return (total / count).to(values.dtype)
