"""Wrong: a sampler that reseeds its generator on every pass, so each epoch repeats the first."""

import torch
from torch.utils.data import DataLoader, Sampler

from solutions.q25_dataset_loader import (  # the rest as in the reference
    SlidingWindows,
    pad_collate,
    throughput_loader,
)


class SeededShuffle(Sampler):
    def __init__(self, n, seed):
        self.n, self.seed = n, seed

    def __iter__(self):
        generator = torch.Generator().manual_seed(self.seed)
        return iter(torch.randperm(self.n, generator=generator).tolist())

    def __len__(self):
        return self.n


def make_loader(dataset, batch_size, seed, collate_fn=None):
    return DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=SeededShuffle(len(dataset), seed),
        collate_fn=collate_fn,
    )
