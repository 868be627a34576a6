"""Wrong: treats every sequence alike and rebuilds tuples (and namedtuples) as lists."""

import torch

from solutions.q26_to_device import (  # the rest as in the reference
    copy_to,
    pick_device,
    place_for_training,
)


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return [to_device(item, device) for item in batch]
    return batch
