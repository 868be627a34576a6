"""merge_heads as permute, contiguous and an explicit view; split_heads as a view that splits
the last dimension (always possible, whatever its stride) and swapdims; storages compared by
a (device, start address) key, the storage objects themselves on the meta device."""

import torch


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """[B, H, T, D] -> [B, T, H * D]."""
    b, h, t, d = x.shape
    return x.permute(0, 2, 1, 3).contiguous().view(b, t, h * d)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """[B, T, E] -> [B, H, T, E // H], always a view."""
    if num_heads < 1:
        raise ValueError(f"num_heads must be a positive int, got {num_heads}")
    b, t, e = x.shape
    head_dim, remainder = divmod(e, num_heads)
    if remainder:
        raise ValueError(f"E = {e} is not divisible by num_heads = {num_heads}")
    return x.view(b, t, num_heads, head_dim).swapdims(1, 2)


def _memory_key(tensor: torch.Tensor) -> tuple[str, int | None, int]:
    return tensor.device.type, tensor.device.index, tensor.untyped_storage().data_ptr()


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether a and b are windows on one memory block."""
    if a.is_meta or b.is_meta:
        return a.untyped_storage() is b.untyped_storage()
    return _memory_key(a) == _memory_key(b)
