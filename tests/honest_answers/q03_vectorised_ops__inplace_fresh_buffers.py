"""In-place arithmetic on fresh buffers, out= matmul, unflatten/movedim, slice writes."""

import torch


def _accumulate_dtype(dtype: torch.dtype) -> torch.dtype:
    # float16/bfloat16 are widened to float32; float32/float64 stay as they are.
    return torch.promote_types(dtype, torch.float32)


def pairwise_sq_dists(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Squared distances from the norm identity, clamped at 0 in place."""
    acc = _accumulate_dtype(x.dtype)
    xa, ya = x.to(acc), y.to(acc)
    out = torch.empty(x.shape[0], y.shape[0], dtype=acc, device=x.device)
    torch.matmul(xa, ya.mT, out=out)
    out.mul_(-2.0)
    out.add_(xa.square().sum(dim=1).unsqueeze(1))
    out.add_(ya.square().sum(dim=1).unsqueeze(0))
    out.clamp_(min=0.0)
    return out.to(x.dtype)


def standardize_columns(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    """Two passes: centre each column, then scale by the population standard deviation."""
    acc = _accumulate_dtype(x.dtype)
    centred = x.to(acc, copy=True)
    centred.sub_(centred.mean(dim=0))
    var = centred.square().mean(dim=0)
    centred.div_(var.add_(eps).sqrt_())
    return centred.to(x.dtype)


def batched_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """One broadcasting matmul against k with its last two dims swapped."""
    return torch.matmul(q, k.transpose(-1, -2))


def to_patches(images: torch.Tensor, patch: int) -> torch.Tensor:
    """Split H and W with unflatten, move the grid forward with movedim, merge with flatten."""
    n, c, h, w = images.shape
    grid = images.unflatten(3, (w // patch, patch)).unflatten(2, (h // patch, patch))
    # [N, C, gh, p, gw, p] -> [N, gh, gw, C, p, p]
    grid = grid.movedim((2, 4), (1, 2))
    return grid.reshape(n, (h // patch) * (w // patch), c * patch * patch)


def interleave_rows(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Write a into the even rows and b into the odd rows of a fresh tensor."""
    out = torch.empty((2 * a.shape[0], *a.shape[1:]), dtype=a.dtype, device=a.device)
    out[0::2] = a
    out[1::2] = b
    return out
