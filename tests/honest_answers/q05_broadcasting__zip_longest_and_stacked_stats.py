"""itertools.zip_longest over reversed shapes; mean and std stacked into one view."""

from itertools import zip_longest

import torch


def _merge(left: int, right: int) -> int | None:
    if left == right or right == 1:
        return left
    if left == 1:
        return right
    return None


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    a, b = tuple(int(n) for n in a), tuple(int(n) for n in b)
    merged = [
        _merge(left, right) for left, right in zip_longest(reversed(a), reversed(b), fillvalue=1)
    ]
    if None in merged:
        raise ValueError(f"shapes {a} and {b} do not broadcast")
    return tuple(n for n in reversed(merged) if n is not None)


def normalize_channels(images: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    if images.ndim != 4:
        raise ValueError(f"images must be [N, C, H, W], got shape {tuple(images.shape)}")
    channels = images.shape[1]
    for name, stat in (("mean", mean), ("std", std)):
        if stat.shape != (channels,):
            raise ValueError(f"{name} must have shape [{channels}], got {tuple(stat.shape)}")
    centre, scale = torch.stack((mean, std)).view(2, channels, 1, 1).unbind(0)
    # images - centre is a fresh tensor of ours: dividing it in place is safe.
    return (images - centre).div_(scale)
