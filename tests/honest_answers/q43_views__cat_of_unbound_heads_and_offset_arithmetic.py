"""merge_heads as torch.cat of the heads unbound along dim 1 (a copy, with a guard for no heads);
split_heads with torch.swapaxes of unflatten; shares_storage from data_ptr minus the offset."""

import torch


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    if x.shape[1] == 0:  # no heads to concatenate: x has no elements, reshape keeps the graph
        batch, _, steps, _ = x.shape
        return x.reshape(batch, steps, 0)
    return torch.cat(x.unbind(1), dim=-1)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    if not (isinstance(num_heads, int) and num_heads >= 1):
        raise ValueError("num_heads must be a positive int")
    features = x.shape[-1]
    head_dim, remainder = divmod(features, num_heads)
    if remainder != 0:
        raise ValueError(f"cannot split {features} features into {num_heads} heads")
    return torch.swapaxes(x.unflatten(-1, (num_heads, head_dim)), 1, 2)


def _storage_start(t: torch.Tensor) -> int:
    return t.data_ptr() - t.storage_offset() * t.element_size()


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.device != b.device:
        return False
    if a.is_meta:
        return a.untyped_storage() is b.untyped_storage()
    return _storage_start(a) == _storage_start(b)
