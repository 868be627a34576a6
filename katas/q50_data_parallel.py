"""Kata 50: distributed data parallel: shard the data, average the gradients.

Data-parallel training runs one copy of the model per process (a *rank*; `world_size` ranks
in all, often one per GPU). Every rank starts from the same parameters and, each step:

1. loads a different shard of the data: `torch.utils.data.DistributedSampler(dataset,
   num_replicas=world_size, rank=rank, shuffle=True, seed=seed)` shuffles the indices with
   one permutation that every rank draws alike (from `seed + epoch`), and gives rank r every
   world_size-th index starting at r, so the shards never overlap. Call
   `sampler.set_epoch(epoch)` at the start of each epoch: without it every epoch repeats the
   first epoch's order;
2. runs forward and backward on its shard alone: each rank's gradients are those of its own
   batch;
3. averages the gradients over the ranks: `torch.distributed.all_reduce(grad)` sums a
   tensor over every rank of a process group, in place, leaving the sum on each rank; divide
   by the world size. Every rank then holds the same gradients and takes the same optimizer
   step, so the copies stay identical.

With equal batches on every rank and a loss that is a mean over the batch, the averaged
gradient *is* the gradient of the whole batch (all ranks' samples together) in one process:
data parallelism changes the speed, not the training. `torch.nn.parallel.DistributedDataParallel`
does step 3 for you, overlapped with the backward pass: it all-reduces the gradients in buckets
as backward produces them (and `no_sync()` skips that for gradient accumulation).

Metrics need the same care: the accuracy over a validation set split among the ranks is the
sum of what every rank counts divided by the total count, not the mean of the ranks' own means
(the shards can differ in size).

The processes meet in a *process group*: `torch.distributed.init_process_group("gloo", ...)`
(the CPU backend; NCCL for CUDA) makes the default group, and the collective functions take
`group=None` for it or another group object. Gloo reduces CPU and CUDA tensors.

Task: `rank_loader`, one rank's shard of a dataset in one epoch; `average_gradients`, the
all-reduce that DistributedDataParallel does; `global_mean`, a metric over every rank's values.
"""

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset


def rank_loader(
    dataset: Dataset, batch_size: int, rank: int, world_size: int, epoch: int, seed: int = 0
) -> DataLoader:
    """A DataLoader over rank `rank`'s shard of `dataset` in epoch `epoch`.

    - Rule: the shard is the one `torch.utils.data.DistributedSampler(dataset,
      num_replicas=world_size, rank=rank, shuffle=True, seed=seed)` gives after
      `set_epoch(epoch)`: the indices shuffled by a permutation drawn from `seed + epoch`
      (the same on every rank), padded by repeating the first ones up to a multiple of
      world_size (the whole permutation over again as often as it takes, when world_size
      exceeds len(dataset)), then every world_size-th index from `rank` on. So each rank has
      ceil(len(dataset) / world_size) samples, the ranks' shards together hold every index,
      and the order changes from one epoch to the next.
    - The permutation comes from a generator of its own: the caller's global random state
      (torch.manual_seed, torch.get_rng_state) is as it was after the call.
    - Batches of `batch_size` samples in the shard's order, the last one shorter (nothing
      dropped), collated as a DataLoader does by default; loaded in this process.
    - Needs no process group: rank and world_size are given.
    - Raises ValueError if rank is not in [0, world_size), from the call itself (not later,
      when the loader is iterated).

    >>> data = torch.utils.data.TensorDataset(torch.arange(10))
    >>> [len(x) for (x,) in rank_loader(data, 2, rank=1, world_size=2, epoch=0)]
    [2, 2, 1]
    """
    # TODO: DataLoader(dataset, batch_size, sampler=DistributedSampler(...)), after set_epoch.
    raise NotImplementedError


def average_gradients(model: nn.Module, group: dist.ProcessGroup | None = None) -> None:
    """After each rank's backward pass, make every gradient of `model` the mean of that
    gradient over the ranks of `group` (None: the default process group).

    - Every parameter whose `.grad` is not None ends with the sum over the ranks of their
      `.grad`, divided by the group's size (`torch.distributed.get_world_size(group)`), on
      every rank, whatever its requires_grad (one frozen after its backward pass still holds
      a gradient). A `.grad` that is None stays None, not zeros (a frozen parameter, or a
      trainable one this step did not use); every rank has the same ones.
    - Hint: `torch.distributed.all_reduce(tensor, group=group)` sums in place (gloo has no
      averaging reduce op); reduce each gradient, or all of them at once, as you like.
    - Each `.grad` is updated in place: the same tensor object (an optimizer or a hook may
      hold it), its memory written (not swapped for new memory through `.data =`: a view
      of it, as DDP's gradient buckets are, sees the mean too), on its device, in its dtype
      and to its dtype's precision (a float64 gradient is not averaged in float32);
      returns None.
    - The order is yours: sum, then divide by the group's size, or divide each rank's
      gradient first and sum (as DDP does). They differ by a rounding, and at the ends of a
      16-bit dtype's range: summed first, float16 gradients overflow above 65504; divided
      first, the smallest flush to zero. Either is correct here.
    - Every rank calls it, with models of the same structure, in the same order.

    >>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    >>> model = nn.Linear(2, 1)
    >>> model(torch.ones(1, 2)).sum().backward()  # on each rank, its own batch
    >>> average_gradients(model)  # one rank: the mean of one gradient
    >>> model.weight.grad
    tensor([[1., 1.]])
    >>> dist.destroy_process_group()
    """
    # TODO: all_reduce each gradient (a sum) over the group, then divide by its size.
    raise NotImplementedError


def global_mean(values: torch.Tensor, group: dist.ProcessGroup | None = None) -> torch.Tensor:
    """The mean of all ranks' `values` together, as one process holding them all would
    compute it (a metric over a validation set split among the ranks).

    - `values`: a 1-D floating tensor; the ranks may hold different numbers of values, a
      rank none at all. If no rank has any value the mean is nan, as `torch.mean` of an empty
      tensor is; a NaN value makes the mean NaN, as it does torch.mean's (none is skipped).
    - Returns a 0-dim tensor of values' dtype on values' device, the same on every rank;
      `values` is left unchanged.
    - Rule: as torch.mean does, accumulate in at least float32 (float64 for float64 values)
      and round once to values' dtype at the end: neither the sum nor the count of float16
      or bfloat16 values may be held in their dtype, where 80000 overflows float16 and 257
      is 256 in bfloat16.
    - Every rank calls it, over the ranks of `group` (None: the default process group).

    >>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    >>> global_mean(torch.tensor([1.0, 2.0, 3.0, 5.0]))  # one rank holds them all
    tensor(2.7500)
    >>> dist.destroy_process_group()

    With two ranks, rank 0 holding [1., 2., 3.] and rank 1 holding [5.], both get
    tensor(2.7500), not the mean of the ranks' means (3.5).
    """
    # TODO: all_reduce the local sum and the local count, then divide.
    raise NotImplementedError
