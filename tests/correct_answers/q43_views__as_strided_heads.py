"""Correct: permute + flatten; split_heads by as_strided from x's own strides."""

import torch


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    return x.permute(0, 2, 1, 3).flatten(2)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    b, t, e = x.shape
    if num_heads < 1 or e % num_heads != 0:
        raise ValueError("num_heads must be positive and divide the features")
    d = e // num_heads
    sb, st, se = x.stride()
    return x.as_strided((b, num_heads, t, d), (sb, d * se, st, se), x.storage_offset())


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    sa, sb = a.untyped_storage(), b.untyped_storage()
    if a.device.type == "meta" or b.device.type == "meta":
        return a.device == b.device and sa is sb
    return a.device == b.device and sa.data_ptr() == sb.data_ptr()
