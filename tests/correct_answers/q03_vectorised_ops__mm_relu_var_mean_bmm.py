"""Correct: mm and relu for the distances, var_mean and rsqrt, bmm over a flattened batch."""

import torch


def pairwise_sq_dists(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    dots = torch.mm(x, y.t())
    return torch.relu((x * x).sum(-1)[:, None] + (y * y).sum(-1)[None, :] - 2 * dots)


def standardize_columns(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    var, mean = torch.var_mean(x, dim=0, correction=0)
    return (x - mean) * torch.rsqrt(var + eps)


def batched_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    count = torch.Size(batch).numel()
    flat_q = q.expand(*batch, *q.shape[-2:]).reshape(count, *q.shape[-2:])
    flat_k = k.expand(*batch, *k.shape[-2:]).reshape(count, *k.shape[-2:])
    return torch.bmm(flat_q, flat_k.transpose(1, 2)).reshape(*batch, q.shape[-2], k.shape[-2])


def to_patches(images: torch.Tensor, patch: int) -> torch.Tensor:
    n, c, h, w = images.shape
    six = (
        images.view(n, c, h // patch, patch, w // patch, patch)
        if images.is_contiguous()
        else (images.reshape(n, c, h // patch, patch, w // patch, patch))
    )
    return six.permute(0, 2, 4, 1, 3, 5).contiguous().view(n, (h // patch) * (w // patch), -1)


def interleave_rows(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    both = torch.stack((a, b))  # [2, N, ...]
    return both.transpose(0, 1).reshape(2 * a.shape[0], *a.shape[1:])
