"""Wrong: calls random_split without a generator, so every call gives another split."""

from torch.utils.data import random_split

from solutions.q45_split_dataset import split_sizes, stratified_split

__all__ = ["split_dataset", "split_sizes", "stratified_split"]


def split_dataset(dataset, fractions, seed):
    split_sizes(len(dataset), fractions)
    return random_split(dataset, fractions)
