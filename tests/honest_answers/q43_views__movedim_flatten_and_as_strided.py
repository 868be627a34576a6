"""movedim + flatten to merge heads, as_strided to split them, storage pointers."""

import torch


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """Move H next to D, then flatten the two (flatten copies only when it has to)."""
    return x.movedim(1, 2).flatten(start_dim=2)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """Describe [B, H, T, D] with x's own strides: a view by construction."""
    if num_heads < 1:
        raise ValueError(f"num_heads must be >= 1, got {num_heads}")
    batch, steps, features = x.shape
    if features % num_heads:
        raise ValueError(f"{features} features do not split into {num_heads} heads")
    head_dim = features // num_heads
    sb, st, se = x.stride()
    return x.as_strided(
        (batch, num_heads, steps, head_dim),
        (sb, se * head_dim, st, se),
        x.storage_offset(),
    )


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Same device and same storage start; on meta, the same storage object."""
    if a.device != b.device:
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    if a.device.type == "meta":
        return sa is sb
    return sa.data_ptr() == sb.data_ptr()
