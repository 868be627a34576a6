"""Wrong: rebuilds every dict as a plain dict, so an OrderedDict or a defaultdict loses its
class."""

from typing import Any

import torch

from solutions.q26_to_device import (  # the rest as in the reference
    copy_to,
    pick_device,
    place_for_training,
)


def to_device(batch: Any, device: torch.device | str) -> Any:
    if isinstance(batch, torch.Tensor):
        # .to returns the tensor itself when nothing changes, and never changes the dtype
        # unless asked to.
        return batch.to(device)
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        # A namedtuple's constructor takes its fields as separate arguments.
        return type(batch)(*(to_device(item, device) for item in batch))
    if isinstance(batch, tuple):
        return tuple(to_device(item, device) for item in batch)
    if isinstance(batch, list):
        return [to_device(item, device) for item in batch]
    # Strings, numbers, None, arrays...: not ours to move (and a str would recurse forever
    # if treated as a sequence).
    return batch
