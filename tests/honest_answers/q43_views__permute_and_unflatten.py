"""permute, flatten and unflatten; storage compared with is_set_to's cousin, data_ptr."""

import torch


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    return x.permute(0, 2, 1, 3).flatten(start_dim=2)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    if num_heads < 1 or x.shape[-1] % num_heads != 0:
        raise ValueError(f"{x.shape[-1]} features do not split into {num_heads} heads")
    return x.unflatten(-1, (num_heads, -1)).permute(0, 2, 1, 3)


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    first, second = a.untyped_storage(), b.untyped_storage()
    if a.is_meta or b.is_meta:  # no memory there: every data pointer is 0
        return first is second
    return bool(first.data_ptr() == second.data_ptr())
