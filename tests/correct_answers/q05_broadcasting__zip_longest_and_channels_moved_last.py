"""Shapes walked with itertools.zip_longest; channels moved last so [C] lines up with them."""

from itertools import zip_longest


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    out: list[int] = []
    for x, y in zip_longest(reversed(tuple(a)), reversed(tuple(b)), fillvalue=1):
        if x != y and 1 not in (x, y):
            raise ValueError(f"shapes {tuple(a)} and {tuple(b)} do not broadcast")
        out.append(y if x == 1 else x)
    return tuple(int(n) for n in reversed(out))


def normalize_channels(images, mean, std):
    if images.dim() != 4:
        raise ValueError(f"images must be [N, C, H, W], got {tuple(images.shape)}")
    channels = images.shape[1]
    if mean.shape != (channels,) or std.shape != (channels,):
        raise ValueError(f"mean and std must be ({channels},), not {mean.shape}, {std.shape}")
    last = images.movedim(1, -1)  # [N, H, W, C]: C now lines up with [C] from the right
    return ((last - mean) / std).movedim(-1, 1)
