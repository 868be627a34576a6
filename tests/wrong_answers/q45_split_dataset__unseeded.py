"""Wrong: calls random_split without a generator, so every call gives another split."""

from torch.utils.data import random_split

from solutions.q45_split_dataset import (  # the rest as in the reference
    split_sizes,
    stratified_split,
)


def split_dataset(dataset, fractions, seed):
    split_sizes(len(dataset), fractions)
    return random_split(dataset, fractions)
