"""Wrong: split_dataset hands the fractions to random_split, which rejects fractions whose
float sum is just above 1 (accepted by split_sizes) and warns about empty splits."""

import torch
from torch.utils.data import random_split

from solutions.q45_split_dataset import (  # the rest as in the reference
    split_sizes,
    stratified_split,
)


def split_dataset(dataset, fractions, seed):
    split_sizes(len(dataset), fractions)
    return random_split(dataset, fractions, generator=torch.Generator().manual_seed(seed))
