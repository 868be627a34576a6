"""Wrong: calls random_split without a generator, so every call gives another split."""

from torch.utils.data import random_split

from solutions.q45_split_dataset import split_sizes, stratified_split  # noqa: F401  # the rest as in the reference


def split_dataset(dataset, fractions, seed):
    split_sizes(len(dataset), fractions)
    return random_split(dataset, fractions)
