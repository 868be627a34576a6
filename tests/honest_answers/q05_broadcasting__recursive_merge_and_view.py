"""broadcast_shape by recursion on the last dimension; statistics viewed as [1, C, 1, 1]."""

import torch


def _last_dim(p: int, q: int, a: tuple[int, ...], b: tuple[int, ...]) -> int:
    if p == q or q == 1:
        return p
    if p == 1:
        return q
    raise ValueError(f"shapes {a} and {b} do not broadcast: {p} vs {q}")


def _merge(
    x: tuple[int, ...], y: tuple[int, ...], a: tuple[int, ...], b: tuple[int, ...]
) -> tuple[int, ...]:
    if not x:
        return y
    if not y:
        return x
    return (*_merge(x[:-1], y[:-1], a, b), _last_dim(x[-1], y[-1], a, b))


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    a = tuple(int(n) for n in a)
    b = tuple(int(n) for n in b)
    return _merge(a, b, a, b)


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


def normalize_channels(images: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    _require(images.dim() == 4, f"images must be [N, C, H, W], got {tuple(images.shape)}")
    channels = images.size(1)
    for name, stat in (("mean", mean), ("std", std)):
        _require(
            tuple(stat.shape) == (channels,),
            f"{name} must have shape ({channels},), got {tuple(stat.shape)}",
        )
    # A leading 1 for N and trailing 1s for H, W: C lines up with C.
    per_channel = (1, channels, 1, 1)
    return torch.div(torch.sub(images, mean.view(per_channel)), std.view(per_channel))
