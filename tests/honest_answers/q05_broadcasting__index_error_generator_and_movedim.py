"""A generator that yields sizes from the right with try/except IndexError; channels moved
last with movedim so that [C] statistics broadcast, and moved back."""

from collections.abc import Iterator

import torch


def _sizes_from_right(a: tuple[int, ...], b: tuple[int, ...]) -> Iterator[int]:
    i = 1
    while True:
        try:
            x = a[-i]
        except IndexError:
            x = None
        try:
            y = b[-i]
        except IndexError:
            y = None
        if x is None and y is None:
            return
        x = 1 if x is None else x
        y = 1 if y is None else y
        if x != y and 1 not in (x, y):
            raise ValueError(f"shapes {tuple(a)} and {tuple(b)} do not broadcast")
        yield y if x == 1 else x
        i += 1


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(reversed(list(_sizes_from_right(a, b))))


def normalize_channels(images: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    if images.dim() != 4:
        raise ValueError(f"images must be [N, C, H, W], got {tuple(images.shape)}")
    channels = images.shape[1]
    if mean.shape != (channels,):
        raise ValueError(f"mean must have shape ({channels},), got {tuple(mean.shape)}")
    if std.shape != (channels,):
        raise ValueError(f"std must have shape ({channels},), got {tuple(std.shape)}")
    # with channels last, a [C] tensor lines up with the channel dimension as it is
    last = images.movedim(1, -1)
    return ((last - mean) / std).movedim(-1, 1)
