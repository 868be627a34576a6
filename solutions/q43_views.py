"""Kata 43: view, reshape, contiguous (reference answer)."""

import torch


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    b, h, t, d = x.shape
    # After the transpose, H and D are no longer adjacent in memory (for a contiguous x),
    # so no view can merge them: .view would raise, .reshape copies when it has to.
    return x.transpose(1, 2).reshape(b, t, h * d)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    b, t, e = x.shape
    if num_heads < 1 or e % num_heads:
        raise ValueError(f"E = {e} is not divisible by num_heads = {num_heads} (must be >= 1)")
    # Splitting one dim into two is always possible as a view, whatever its stride, and
    # transpose only swaps strides: no copy in either step. .view (not .reshape) makes
    # that promise checked: it raises instead of copying.
    return x.view(b, t, num_heads, e // num_heads).transpose(1, 2)


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    # data_ptr() is where a tensor's first element is (it moves with the offset of
    # x[1:]); the storage's data_ptr is where the whole memory block starts.
    if a.device != b.device:
        return False
    if a.device.type == "meta":
        # Meta tensors have no memory (every data pointer is 0): the storage object is all
        # there is, and torch hands out one Python object per storage.
        return a.untyped_storage() is b.untyped_storage()
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
