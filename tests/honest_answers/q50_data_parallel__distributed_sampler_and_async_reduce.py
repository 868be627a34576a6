"""DistributedSampler itself; async all_reduce per gradient; sum and int64 count reduced apart."""

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler


def rank_loader(
    dataset: Dataset, batch_size: int, rank: int, world_size: int, epoch: int, seed: int = 0
) -> DataLoader:
    if not 0 <= rank < world_size:
        raise ValueError(f"rank must be in [0, {world_size}), got {rank}")
    sampler = DistributedSampler(
        dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=seed
    )
    sampler.set_epoch(epoch)  # the permutation comes from seed + epoch
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)


def average_gradients(model: nn.Module, group: dist.ProcessGroup | None = None) -> None:
    size = dist.get_world_size(group)
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    pending = [dist.all_reduce(grad, group=group, async_op=True) for grad in grads]
    for work, grad in zip(pending, grads, strict=True):
        work.wait()
        grad.div_(size)  # in place, in the gradient's own dtype


def global_mean(values: torch.Tensor, group: dist.ProcessGroup | None = None) -> torch.Tensor:
    total = values.sum(dtype=torch.promote_types(values.dtype, torch.float32))
    count = torch.tensor(values.numel(), dtype=torch.int64, device=values.device)
    for partial_result in (total, count):
        dist.all_reduce(partial_result, group=group)
    # An empty world divides 0 by 0: nan, as torch.mean of nothing.
    return (total / count).to(values.dtype)
