"""Wrong: rebuilds the labels from Python numbers, so int32 labels come back int64 (and
float64 ones float32)."""

import torch
from torch.nn.utils.rnn import pad_sequence

from solutions.q25_dataset_loader import SlidingWindows, make_loader, throughput_loader


def pad_collate(batch, padding_value=0.0):
    sequences, labels = zip(*batch, strict=True)
    padded = pad_sequence(list(sequences), batch_first=True, padding_value=padding_value)
    lengths = torch.tensor([len(s) for s in sequences], dtype=torch.int64)
    return padded, lengths, torch.tensor([label.item() for label in labels], device=padded.device)
