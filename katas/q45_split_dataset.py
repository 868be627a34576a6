"""Kata 45: train / validation / test splits.

`torch.utils.data.random_split(dataset, fractions, generator=...)` deals the indices of a
dataset into non-overlapping `Subset`s: views that load lazily from the original dataset.
Give it a `torch.Generator` seeded with a fixed number and the split is the same every run
(and on every machine), without touching the global random state. A random split can
leave a rare class almost absent from a small validation set; a stratified split deals
each class separately, so every split keeps the class ratios.

Task: the sizes a split gets, a seeded random split, and a stratified split.
"""

from collections.abc import Sequence

import torch
from torch.utils.data import Dataset, Subset


def split_sizes(n: int, fractions: Sequence[float]) -> list[int]:
    """How many of `n` items each split gets, rounding as `random_split` does.

    - fractions: one or more numbers, each in [0, 1], summing to 1 (within `math.isclose`
      with its default tolerance; a sum 1e-7 away is not 1). Raise ValueError otherwise.
    - Split k first gets floor(n * fractions[k]) items; the items left over are then given
      one each to the first splits, in order (split 0, split 1, ...), and round again from
      split 0 if more are left over than there are splits (a sum just under 1 does that for
      a large n). The sizes sum to n. Sizes may be 0.

    >>> split_sizes(10, [0.45, 0.45, 0.1])  # floors 4, 4, 1; the one left over goes to split 0
    [5, 4, 1]
    """
    # TODO: floor each share, then hand out the remainder from the first split on.
    raise NotImplementedError


def split_dataset(dataset: Dataset, fractions: Sequence[float], seed: int) -> list[Subset]:
    """Split `dataset` at random into `len(fractions)` disjoint subsets.

    - Returns the same subsets as `random_split(dataset, sizes, generator=g)` with
      `sizes = split_sizes(len(dataset), fractions)` and
      `g = torch.Generator().manual_seed(seed)`: together every index of the dataset
      exactly once. (Passing the fractions to random_split gives the same split where it
      accepts them, but it rejects fractions whose float sum is just above 1, such as
      [0.2, 0.4, 0.3, 0.1], and it warns about empty splits; neither happens here.)
    - The same seed always gives the same split; another seed gives another one. The
      global random state is not used or changed, not even for the duration of the call
      (reseeding it inside `torch.random.fork_rng` uses it), and the generator is the
      call's own: one kept by the module and reseeded on every call is shared by every
      caller (two threads splitting at once draw from each other's seed).
    - Raise ValueError for fractions that `split_sizes` rejects.

    >>> train, val = split_dataset(list(range(10)), [0.8, 0.2], seed=0)
    >>> len(train), len(val), sorted(train.indices + val.indices) == list(range(10))
    (8, 2, True)
    """
    # TODO: call random_split with a generator of its own, seeded with `seed`.
    raise NotImplementedError


def stratified_split(
    dataset: Dataset, labels: torch.Tensor, fractions: Sequence[float], seed: int
) -> list[Subset]:
    """Split `dataset` class by class, so that every split keeps the class ratios.

    - labels: 1-D integer tensor, the class of each item of `dataset` (same length), on
      any device; class ids are any integers (they need not run from 0, and may be
      negative). Raise ValueError if it is not 1-D or its length differs from the
      dataset's (shorter or longer), and for fractions that `split_sizes` rejects.
    - For each class with n_c items, split k gets `split_sizes(n_c, fractions)[k]` of
      them, chosen at random with one `torch.Generator`, seeded once with `seed`, that
      every class draws from in turn: classes are shuffled independently of each other
      (a generator seeded anew with `seed` for each class would pick the same positions
      in every class of the same size).
    - Returns `len(fractions)` Subsets of `dataset` whose `.indices` are lists of Python
      ints (in any order); together they hold every index exactly once. Same seed, same
      split; another seed, another split; the global random state is not used or changed.

    >>> labels = torch.tensor([0] * 8 + [1] * 4)
    >>> train, val = stratified_split(list(range(12)), labels, [0.75, 0.25], seed=0)
    >>> labels[train.indices].bincount().tolist(), labels[val.indices].bincount().tolist()
    ([6, 3], [2, 1])
    """
    # TODO: group the indices by class, shuffle each group, deal it out by split_sizes.
    raise NotImplementedError
