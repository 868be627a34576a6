"""Correct: the shard drawn by hand (the permutation from seed + epoch, padded, every
world_size-th index), all gradients reduced in one flat buffer, and the sum and the count
reduced together in one tensor."""

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset, Subset


def rank_loader(
    dataset: Dataset, batch_size: int, rank: int, world_size: int, epoch: int, seed: int = 0
) -> DataLoader:
    if not 0 <= rank < world_size:
        raise ValueError(f"rank {rank} is not in [0, {world_size})")
    n = len(dataset)  # type: ignore[arg-type]
    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed + epoch)).tolist()
    per_rank = -(-n // world_size)
    padded = (order * (per_rank * world_size // max(n, 1) + 1))[: per_rank * world_size]
    return DataLoader(Subset(dataset, padded[rank::world_size]), batch_size=batch_size)


def average_gradients(model: nn.Module, group: dist.ProcessGroup | None = None) -> None:
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    if not grads:
        return
    flat = torch.cat([g.reshape(-1) for g in grads])
    dist.all_reduce(flat, group=group)
    flat /= dist.get_world_size(group)
    for g, part in zip(grads, flat.split([g.numel() for g in grads])):
        g.copy_(part.view_as(g))


def global_mean(values: torch.Tensor, group: dist.ProcessGroup | None = None) -> torch.Tensor:
    wide = torch.float64 if values.device.type != "mps" else torch.float32
    both = torch.stack(
        [values.sum(dtype=wide), torch.tensor(values.numel(), dtype=wide, device=values.device)]
    )
    dist.all_reduce(both, group=group)
    return (both[0] / both[1]).to(values.dtype)
