"""Correct: permute and flatten, unflatten for the split, and where the memory block begins
computed from data_ptr() and storage_offset()."""

import torch


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    return x.permute(0, 2, 1, 3).flatten(2)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    e = x.shape[-1]
    if num_heads < 1 or e % num_heads != 0:
        raise ValueError("E must be divisible by num_heads >= 1")
    return x.unflatten(-1, (num_heads, e // num_heads)).permute(0, 2, 1, 3)


def _block_start(t: torch.Tensor) -> int:
    return t.data_ptr() - t.storage_offset() * t.element_size()


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.device != b.device:
        return False
    if a.is_meta:
        return a.untyped_storage() is b.untyped_storage()
    return bool(_block_start(a) == _block_start(b))
