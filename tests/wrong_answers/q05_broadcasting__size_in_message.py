"""Wrong: the ValueError writes the shapes as given, so torch.Size inputs read
"torch.Size([2, 3])" instead of the Python tuple "(2, 3)"."""

import itertools

import torch


def broadcast_shape(a, b):
    result = []
    for x, y in itertools.zip_longest(reversed(a), reversed(b), fillvalue=1):
        if x != y and 1 not in (x, y):
            raise ValueError(f"shapes {a} and {b} do not broadcast")
        result.append(y if x == 1 else x)
    return tuple(reversed(result))


def normalize_channels(images: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    if images.dim() != 4:
        raise ValueError(f"images must be [N, C, H, W], got shape {tuple(images.shape)}")
    channels = images.shape[1]
    if mean.shape != (channels,) or std.shape != (channels,):
        raise ValueError("mean and std must have shape [C]")
    return (images - mean[:, None, None]) / std[:, None, None]
