"""A loop from the right with a private helper, f-strings, views for the channels."""

from __future__ import annotations

import torch


def _from_the_right(shape: tuple[int, ...], count: int) -> tuple[int, ...]:
    return (1,) * (count - len(shape)) + tuple(shape)


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    count = max(len(a), len(b))
    left, right = _from_the_right(a, count), _from_the_right(b, count)
    out = []
    i = count - 1
    while i >= 0:
        x, y = left[i], right[i]
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ValueError(f"cannot broadcast {tuple(a)} with {tuple(b)}")
        i -= 1
    return tuple(reversed(out))


def normalize_channels(images: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    if images.ndim != 4:
        raise ValueError(f"expected [N, C, H, W], got {images.ndim} dims")
    c = images.size(1)
    if tuple(mean.shape) != (c,) or tuple(std.shape) != (c,):
        shapes = f"{list(mean.shape)} and {list(std.shape)}"
        raise ValueError(f"mean and std must have shape [{c}], got {shapes}")
    return (images - mean.view(1, c, 1, 1)) / std.view(1, c, 1, 1)
