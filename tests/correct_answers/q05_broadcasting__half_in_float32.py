"""Correct: normalizes float16 and bfloat16 in float32 and rounds once."""

import itertools

import torch


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    result = []
    # Walk from the right; the shorter shape is padded on the left with 1s.
    for x, y in itertools.zip_longest(reversed(a), reversed(b), fillvalue=1):
        if x != y and 1 not in (x, y):
            raise ValueError(f"shapes {tuple(a)} and {tuple(b)} do not broadcast")
        result.append(y if x == 1 else x)  # a size-1 dim stretches to the other size
    return tuple(reversed(result))


def normalize_channels(images: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    if images.dim() != 4:
        raise ValueError(f"images must be [N, C, H, W], got shape {tuple(images.shape)}")
    channels = images.shape[1]
    if mean.shape != (channels,) or std.shape != (channels,):
        raise ValueError(
            f"mean and std must have shape ({channels},), got {tuple(mean.shape)} "
            f"and {tuple(std.shape)}"
        )
    # [C] would line up with W; [C, 1, 1] lines up with the channel dim of [N, C, H, W].
    low = images.dtype in (torch.float16, torch.bfloat16)
    work = (lambda t: t.float()) if low else (lambda t: t)
    out = (work(images) - work(mean)[:, None, None]) / work(std)[:, None, None]
    return out.to(images.dtype)
