"""Kata 25: a Dataset, a collate_fn and a seeded DataLoader.

A `Dataset` answers two questions: how many samples there are (`__len__`) and what sample
number i is (`__getitem__`). A `DataLoader` asks it for indices (in order, or shuffled by a
sampler), groups the samples into lists of `batch_size`, and hands each list to a
`collate_fn` that turns it into batch tensors. Samples of different lengths cannot be
stacked, so their collate_fn pads them and says how long each one really was. Shuffling
draws from a random generator; give the loader its own seeded `torch.Generator` and the
order is the same every run, whatever else uses the global random state.

Task: a sliding-window forecasting Dataset, a padding collate_fn, and a seeded loader.
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
      lengths: int64 [B] with the L_i, on the CPU whatever the sequences' device (that is
      where `pack_padded_sequence` wants them).
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
      different orders. Each pass over one loader is a new shuffle (epoch 2 is not a repeat
      of epoch 1), and building or iterating the loader does not use or change the global
      random state.

    >>> loader = make_loader(list(range(6)), batch_size=4, seed=0)
    >>> [batch.tolist() for batch in loader]  # doctest: +SKIP
    [[5, 1, 0, 3], [2, 4]]
    """
    # TODO: build a DataLoader that shuffles with its own seeded torch.Generator.
    raise NotImplementedError
