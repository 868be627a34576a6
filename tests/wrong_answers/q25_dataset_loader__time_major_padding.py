"""Wrong: pads with pad_sequence's default layout, time-major [T, B], not batch first."""

import torch
from torch.nn.utils.rnn import pad_sequence

from solutions.q25_dataset_loader import (  # the rest as in the reference
    SlidingWindows,
    make_loader,
    throughput_loader,
)


def pad_collate(batch, padding_value=0.0):
    sequences, labels = zip(*batch, strict=True)
    padded = pad_sequence(list(sequences), padding_value=padding_value)
    lengths = torch.tensor([len(s) for s in sequences], dtype=torch.int64)
    return padded, lengths, torch.stack(labels)
