"""merge_heads writes x into a fresh [B, T, H * D] buffer through a [B, T, H, D] view of it
(copy_ is recorded by autograd); split_heads views the last dimension as (H, D) and moves the
head dimension forward with movedim; shares_storage compares the storages' start addresses."""

import torch


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """[B, H, T, D] -> [B, T, H * D], always a fresh tensor."""
    b, h, t, d = x.shape
    out = torch.empty((b, t, h * d), dtype=x.dtype, device=x.device)
    out.view(b, t, h, d).copy_(x.transpose(1, 2))
    return out


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """[B, T, E] -> [B, H, T, E // H], a view of x."""
    if not num_heads >= 1:
        raise ValueError(f"num_heads must be at least 1, got {num_heads}")
    b, t, e = x.shape
    if e % num_heads != 0:
        raise ValueError(f"{e} features do not split into {num_heads} heads")
    return x.view(b, t, num_heads, e // num_heads).movedim(2, 1)


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether a and b are windows on one memory block."""
    first, second = a.untyped_storage(), b.untyped_storage()
    if a.device.type == "meta" or b.device.type == "meta":
        return first is second
    return a.device == b.device and first.data_ptr() == second.data_ptr()
