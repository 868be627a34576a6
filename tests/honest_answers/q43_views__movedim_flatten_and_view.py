"""movedim then flatten (which copies only when it must), view to split the features then
transpose, and storages compared by where their memory begins on which device."""

import torch


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    return x.movedim(1, 2).flatten(start_dim=2)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    if num_heads < 1:
        raise ValueError(f"num_heads must be >= 1, got {num_heads}")
    batch, time, features = x.shape
    head_dim, rest = divmod(features, num_heads)
    if rest:
        raise ValueError(f"{features} features do not split into {num_heads} heads")
    return x.view(batch, time, num_heads, head_dim).transpose(1, 2)


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.device != b.device:
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    if a.device.type == "meta":
        return sa is sb
    return sa.data_ptr() == sb.data_ptr()
