"""Kata 25: a Dataset, a collate_fn and a seeded DataLoader.

A `Dataset` answers two questions: how many samples there are (`__len__`) and what sample
number i is (`__getitem__`). A `DataLoader` asks it for indices (in order, or shuffled by a
sampler), groups the samples into lists of `batch_size`, and hands each list to a
`collate_fn` that turns it into batch tensors. Samples of different lengths cannot be
stacked, so their collate_fn pads them and says how long each one really was. Shuffling
draws from a random generator; give the loader its own seeded `torch.Generator` and the
order is the same every run, whatever else uses the global random state.

A loader that keeps an accelerator busy prepares batches while the model computes:
`num_workers` processes load and collate in parallel, each keeping `prefetch_factor`
batches ready ahead; `persistent_workers=True` keeps them alive from one epoch to the next
instead of starting them again (a process start costs far more than a tiny batch);
`pin_memory=True` collates into pinned memory, from which the copy to the accelerator can
run with `non_blocking=True` (kata 26). With no workers, everything happens in the main
process between steps, and DataLoader refuses `prefetch_factor` or `persistent_workers`.

Task: a sliding-window forecasting Dataset, a padding collate_fn, a seeded loader, and a
loader built for throughput.
"""

from collections.abc import Callable
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset


class SlidingWindows(Dataset):
    """Windows over a time series, each with the value that follows it as the target.

    - series: tensor of shape [N, *F] (N time steps, each a value of shape F; F may be
      empty for a 1-D series), any dtype, any device. It is not modified.
    - window: length W >= 1 of each input window; stride: step S >= 1 between the starts
      of consecutive windows. Raise ValueError if either is < 1.
    - Sample i starts at s = i * S: it is `(series[s : s + W], series[s + W])`, shapes
      [W, *F] and [F], same dtype and device as the series. Only windows whose target
      exists count, so `len` is the number of starts s with s + W <= N - 1 (0 when N <= W).
    - Rule: keep the caller's series itself, not a copy made at construction (a long
      series is large, and a copy doubles it), whatever its layout: each sample is taken
      from the series as it is then (its slices, or a copy of them made as the sample is
      taken: either is the sample).
    - `__getitem__` raises IndexError for an index >= len(self) (negative indices may
      count from the end, as for a list, or raise IndexError).

    >>> ds = SlidingWindows(torch.arange(6.0), window=3, stride=2)
    >>> len(ds)
    2
    >>> ds[1]
    (tensor([2., 3., 4.]), tensor(5.))
    """

    def __init__(self, series: torch.Tensor, window: int, stride: int = 1) -> None:
        # TODO: check window and stride, keep the series.
        raise NotImplementedError

    def __len__(self) -> int:
        # TODO: count the windows that have a target.
        raise NotImplementedError

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        # TODO: return (window, target) for sample `index`; IndexError past the end.
        raise NotImplementedError


def pad_collate(
    batch: list[tuple[torch.Tensor, torch.Tensor]], padding_value: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Collate `(sequence, label)` samples of different lengths into padded tensors.

    - batch: B >= 1 pairs. Each sequence has shape [L_i, *F] (L_i >= 0; the same F and dtype
      for all), each label is a 0-dim tensor; all on one device.
    - Returns `(padded, lengths, labels)`:
      padded: [B, T, *F] with T = max L_i, batch first, sequence i in `padded[i, :L_i]` and
      `padding_value` after it; the sequences' dtype and device.
      lengths: int64 [B] with the L_i, on the CPU whatever the sequences' device and
      whatever torch's default device (a caller may have set it to the GPU with
      torch.set_default_device: name the CPU); that is where `pack_padded_sequence` wants
      them. L_i counts every step of sequence i, also those whose value equals padding_value.
      labels: the labels stacked, [B], their dtype, on the sequences' device.
    - The samples are not modified.

    >>> padded, lengths, labels = pad_collate(
    ...     [(torch.tensor([1, 2, 3]), torch.tensor(0)), (torch.tensor([4]), torch.tensor(1))],
    ...     padding_value=-1,
    ... )
    >>> padded
    tensor([[ 1,  2,  3],
            [ 4, -1, -1]])
    >>> lengths, labels
    (tensor([3, 1]), tensor([0, 1]))
    """
    # TODO: pad the sequences batch first, record their lengths, stack the labels.
    raise NotImplementedError


def make_loader(
    dataset: Dataset, batch_size: int, seed: int, collate_fn: Callable[[list], Any] | None = None
) -> DataLoader:
    """A DataLoader that shuffles `dataset` in an order fixed by `seed`.

    - Batches of `batch_size` (the last one may be smaller), collated by `collate_fn`
      (None: the default collate), in the main process (no workers).
    - Two loaders built with the same seed yield the same batches in the same order, even
      when other code uses torch's global random state in between; different seeds give
      different orders as far as they can: the generator gets the whole seed (it keeps
      its low 32 bits: two seeds that differ in any of those bits give different orders,
      a seed and its negative too),
      and a dataset of n samples has only n! orders. Which order a seed gives is not
      specified (the example's is what `torch.Generator().manual_seed(seed)` gives; any
      one-to-one use of the seed will do). Each pass over one loader is a new shuffle
      (epoch 2 is not a repeat of epoch 1), and building or iterating the loader does not
      use or change the global random state.

    >>> loader = make_loader(list(range(6)), batch_size=4, seed=0)
    >>> [batch.tolist() for batch in loader]  # doctest: +SKIP
    [[5, 1, 0, 3], [2, 4]]
    """
    # TODO: build a DataLoader that shuffles with its own seeded torch.Generator.
    raise NotImplementedError


def throughput_loader(
    dataset: Dataset,
    batch_size: int,
    device: torch.device | str,
    num_workers: int,
    prefetch: int = 2,
) -> DataLoader:
    """A DataLoader over `dataset` set up for the situation: where the batches go and how
    many worker processes load them.

    - Batches of `batch_size` in the dataset's order (no shuffling; the last, smaller batch
      is kept), default collate, exactly `num_workers` worker processes as asked, even more
      than the machine has cores (0: the main process).
    - Rule, one row per situation (`device` is where the batches will be used, a
      torch.device or a string; "cpu:0" is the CPU too; an accelerator is every device
      type but the CPU and `meta` (shapes without data): cuda, mps, xpu, hpu, lazy or any
      other):

      | situation                  | pin_memory | prefetch_factor | persistent_workers |
      | -------------------------- | ---------- | --------------- | ------------------ |
      | no workers, CPU            | False      | None (default)  | False (default)    |
      | no workers, accelerator    | True       | None (default)  | False (default)    |
      | workers > 0, CPU           | False      | prefetch        | True               |
      | workers > 0, accelerator   | True       | prefetch        | True               |

      Pinning serves a copy to an accelerator only (on the CPU it is a copy for nothing).
      Without workers, leave prefetch_factor and persistent_workers unset: DataLoader
      raises ValueError for either when num_workers is 0.
    - The loader's start method is left to the platform's default
      (`multiprocessing_context` None); a caller may set it before iterating.

    >>> loader = throughput_loader(list(range(5)), batch_size=2, device="cpu", num_workers=0)
    >>> [batch.tolist() for batch in loader]
    [[0, 1], [2, 3], [4]]
    >>> loader.pin_memory, loader.prefetch_factor, loader.persistent_workers
    (False, None, False)
    """
    # TODO: num_workers as given; pin for an accelerator; prefetch and persist with workers.
    raise NotImplementedError
