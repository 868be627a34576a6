"""A structural match statement per aligned pair of sizes; a clone normalised in place
(sub_, div_) with the statistics viewed as [C, 1, 1]."""

import torch


def _pair(x: int, y: int, a: tuple[int, ...], b: tuple[int, ...]) -> int:
    match (x, y):
        case (1, other) | (other, 1):
            return other
        case (p, q) if p == q:
            return p
        case _:
            raise ValueError(f"cannot broadcast {tuple(a)} with {tuple(b)}")


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    width = max(len(a), len(b))
    padded_a = (1,) * (width - len(a)) + tuple(a)
    padded_b = (1,) * (width - len(b)) + tuple(b)
    return tuple(int(_pair(x, y, a, b)) for x, y in zip(padded_a, padded_b, strict=True))


def normalize_channels(images: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    if images.ndim != 4:
        raise ValueError("images must be 4-D [N, C, H, W]")
    expected = torch.Size([images.size(1)])
    if mean.shape != expected or std.shape != expected:
        raise ValueError(
            f"mean and std must have shape {tuple(expected)}, "
            f"got {tuple(mean.shape)} and {tuple(std.shape)}"
        )
    out = images.clone()  # keeps the layout; in-place on the copy only
    out.sub_(mean.view(-1, 1, 1)).div_(std.view(-1, 1, 1))
    return out
