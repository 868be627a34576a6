"""Each aligned pair reduced to the set of its sizes other than 1; normalisation written for
one channel and mapped over dim 1 with torch.func.vmap (no channels: nothing to map)."""

import torch
from torch.func import vmap


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    a, b = tuple(a), tuple(b)
    width = max(len(a), len(b))
    padded_a, padded_b = (1,) * (width - len(a)) + a, (1,) * (width - len(b)) + b
    result = []
    for left, right in zip(padded_a, padded_b, strict=True):
        sizes = {left, right} - {1}  # what the position must be, if anything
        if len(sizes) > 1:
            raise ValueError(f"shapes {a} and {b} do not broadcast ({left} against {right})")
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


def _one_channel(plane: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    return (plane - mean) / std  # plane [N, H, W]; mean, std 0-dim


def normalize_channels(images: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    if images.dim() != 4:
        raise ValueError(f"images must be 4-D [N, C, H, W], got shape {tuple(images.shape)}")
    expected = images.shape[1:2]
    if mean.shape != expected or std.shape != expected:
        raise ValueError(
            f"mean and std must have shape {tuple(expected)}, got {tuple(mean.shape)} "
            f"and {tuple(std.shape)}"
        )
    if images.shape[1] == 0:  # vmap cannot map a dimension of size 0; nothing to normalise
        return images.clone()
    return vmap(_one_channel, in_dims=(1, 0, 0), out_dims=1)(images, mean, std)
