"""Shapes padded with 1s and merged pairwise; a fresh sub then an in-place div_."""

import torch


def _merge(x: int, y: int, a: tuple[int, ...], b: tuple[int, ...]) -> int:
    if x == y or y == 1:
        return x
    if x == 1:
        return y
    raise ValueError(f"shapes {a} and {b} do not broadcast")


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """Broadcast two shapes after left-padding the shorter one with 1s."""
    a, b = tuple(int(d) for d in a), tuple(int(d) for d in b)
    length = max(len(a), len(b))
    pa = (1,) * (length - len(a)) + a
    pb = (1,) * (length - len(b)) + b
    return tuple(_merge(x, y, a, b) for x, y in zip(pa, pb))


def normalize_channels(images: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    """Per-channel (x - mean) / std with the statistics indexed to [C, 1, 1]."""
    if images.dim() != 4:
        raise ValueError(f"images must be [N, C, H, W], got {tuple(images.shape)}")
    channels = images.shape[1]
    for name, stat in (("mean", mean), ("std", std)):
        if stat.shape != (channels,):
            raise ValueError(f"{name} must have shape ({channels},), got {tuple(stat.shape)}")
    out = torch.sub(images, mean[:, None, None])
    return out.div_(std[:, None, None])
