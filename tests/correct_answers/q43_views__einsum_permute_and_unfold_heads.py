"""einsum as a permutation then reshape to merge; Tensor.unfold over the features to split."""

import torch


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    batch, heads, steps, width = x.shape
    return torch.einsum("bhtd->bthd", x).reshape(batch, steps, heads * width)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    if num_heads < 1:
        raise ValueError(f"num_heads must be positive, got {num_heads}")
    features = x.shape[-1]
    if features % num_heads:
        raise ValueError(f"{features} features do not split into {num_heads} heads")
    width = features // num_heads
    # [B, T, H, D]: windows that do not overlap (unfold needs a positive step: no features
    # split as a plain view).
    per_head = x.unfold(-1, width, width) if width else x.unflatten(-1, (num_heads, 0))
    return per_head.transpose(1, 2)


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    left, right = a.untyped_storage(), b.untyped_storage()
    if a.device.type == "meta" or b.device.type == "meta":
        return left is right
    return left.device == right.device and left.data_ptr() == right.data_ptr()
