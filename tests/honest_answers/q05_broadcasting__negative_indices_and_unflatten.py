"""Negative indices walked from the leftmost aligned position; stats unflattened to [C, 1, 1]."""

import torch


def _size(shape: tuple[int, ...], index: int) -> int:
    """shape[index] for a negative index, 1 where the shape has no such dimension."""
    return shape[index] if -index <= len(shape) else 1


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    a, b = tuple(a), tuple(b)
    result = []
    for index in range(-max(len(a), len(b)), 0):
        left, right = _size(a, index), _size(b, index)
        if left != right and 1 not in (left, right):
            raise ValueError(f"shapes {a} and {b} do not broadcast: {left} vs {right}")
        result.append(right if left == 1 else left)
    return tuple(result)


def normalize_channels(images: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    if images.ndim != 4:
        raise ValueError(f"images must be [N, C, H, W], got {tuple(images.shape)}")
    channels = images.shape[1]
    for name, stat in (("mean", mean), ("std", std)):
        if stat.shape != (channels,):
            raise ValueError(f"{name} must have shape ({channels},), got {tuple(stat.shape)}")
    # [C] -> [C, 1, 1]: lines C up with dim 1 of [N, C, H, W]
    return images.sub(mean.unflatten(0, (-1, 1, 1))).div(std.unflatten(0, (-1, 1, 1)))
