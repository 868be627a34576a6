"""float64 internals throughout, bmm over a flattened batch, as_strided patches,
slice-assigned rows."""

import math

import torch


def pairwise_sq_dists(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    xd, yd = x.to(torch.float64), y.to(torch.float64)
    xx = (xd * xd).sum(dim=1)
    yy = (yd * yd).sum(dim=1)
    # addmm: beta * (|x_i|^2 + |y_j|^2) - 2 * x @ y^T in one call
    d = torch.addmm(xx[:, None] + yy[None, :], xd, yd.T, beta=1.0, alpha=-2.0)
    d = torch.where(d < 0, torch.zeros((), dtype=d.dtype, device=d.device), d)
    return d.to(x.dtype)


def standardize_columns(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    xd = x.to(torch.float64)
    centred = xd - xd.mean(dim=0, keepdim=True)
    var = centred.square().mean(dim=0, keepdim=True)
    return (centred / (var + eps).sqrt()).to(x.dtype)


def batched_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    *qb, t, d = q.shape
    *kb, s, _ = k.shape
    batch = torch.broadcast_shapes(tuple(qb), tuple(kb))
    n = math.prod(batch)
    q3 = q.expand(*batch, t, d).reshape(n, t, d)
    k3 = k.expand(*batch, s, d).reshape(n, s, d)
    return torch.bmm(q3, k3.transpose(1, 2)).reshape(*batch, t, s)


def to_patches(images: torch.Tensor, patch: int) -> torch.Tensor:
    n, c, h, w = images.shape
    sn, sc, sh, sw = images.stride()
    gh, gw = h // patch, w // patch
    view = images.as_strided(
        (n, gh, gw, c, patch, patch),
        (sn, sh * patch, sw * patch, sc, sh, sw),
        images.storage_offset(),
    )
    return view.reshape(n, gh * gw, c * patch * patch)


def interleave_rows(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    out = torch.empty((2 * a.shape[0], *a.shape[1:]), dtype=a.dtype, device=a.device)
    out[0::2] = a
    out[1::2] = b
    return out
