"""Kata 22: masked sequence losses (reference answer)."""

import math

import torch
import torch.nn.functional as F


def length_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    # bool is no integer dtype here: a bool tensor is a mask passed where lengths belong.
    dtype = lengths.dtype
    if lengths.dim() != 1 or dtype == torch.bool or dtype.is_floating_point or dtype.is_complex:
        raise ValueError(
            f"lengths must be a 1-D integer tensor, got {lengths.dtype} {tuple(lengths.shape)}"
        )
    if max_len < 0:
        raise ValueError(f"max_len must be >= 0, got {max_len}")
    # Compare as int64: max_len need not fit the lengths' own dtype (uint8 lengths, max_len
    # 512), and torch has hardly any arithmetic for uint16/32/64. Every valid length fits.
    lengths = lengths.long()
    if lengths.numel() and (lengths.min() < 0 or lengths.max() > max_len):
        raise ValueError(f"lengths must lie in [0, {max_len}], got {lengths.tolist()}")
    # [T] positions against [B, 1] lengths broadcast to [B, T]: real where t < length.
    positions = torch.arange(max_len, device=lengths.device)
    return positions < lengths.unsqueeze(1)


def _accumulation_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def _check_mask(mask: torch.Tensor, batch_shape: torch.Size) -> None:
    if mask.dtype != torch.bool:
        raise ValueError(f"mask must be a bool tensor, got {mask.dtype}")
    if mask.shape != batch_shape:
        raise ValueError(f"mask must have shape {tuple(batch_shape)}, got {tuple(mask.shape)}")


def masked_mse(pred: torch.Tensor, target: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    if pred.shape != target.shape or pred.dim() < 2:
        raise ValueError(
            f"pred and target must share a [B, T, ...] shape, got {tuple(pred.shape)} "
            f"and {tuple(target.shape)}"
        )
    _check_mask(mask, pred.shape[:2])
    # Boolean indexing keeps the real tokens only ([n_real, *features]): padded values
    # never enter the arithmetic, so a huge value there cannot overflow into a nan, and
    # the gradient at padded positions is exactly 0.
    # float16/bfloat16 in float32: a square or a sum can overflow (or lose its low bits)
    # where the mean would not. The loss is rounded once, at the end.
    acc = _accumulation_dtype(pred.dtype)
    squared_error = (pred[mask].to(acc) - target[mask].to(acc)).square()
    # Every token has the same number of features, so the mean of per-token means is the
    # sum over real elements divided by (real tokens × features). clamp keeps 0/0 away.
    features = math.prod(pred.shape[2:])
    return (squared_error.sum() / (mask.sum() * features).clamp(min=1)).to(pred.dtype)


def masked_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    if logits.dim() != 3:
        raise ValueError(f"logits must be [B, T, C], got shape {tuple(logits.shape)}")
    if target.dtype != torch.int64 or target.shape != logits.shape[:2]:
        raise ValueError(
            f"target must be int64 of shape {tuple(logits.shape[:2])}, "
            f"got {target.dtype} {tuple(target.shape)}"
        )
    _check_mask(mask, logits.shape[:2])
    # logits[mask] is [n_real, C] with the classes last, as F.cross_entropy expects, and
    # the padded targets (possibly out of range) never reach it.
    # (float16/bfloat16 in float32, as for masked_mse: the sum could overflow.)
    acc = _accumulation_dtype(logits.dtype)
    total = F.cross_entropy(logits[mask].to(acc), target[mask], reduction="sum")
    # Divide by the token count of the whole batch, not per sequence; no tokens gives 0.
    return (total / mask.sum().clamp(min=1)).to(logits.dtype)
