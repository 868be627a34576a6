"""A single-operand einsum to permute, then reshape; split_heads as .view on the last dim and
.permute; shares_storage compares (device, untyped_storage().data_ptr()) pairs."""

import torch


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    batch, heads, steps, dim = x.shape
    # einsum with one operand and no summed index only permutes: a view, no arithmetic.
    return torch.einsum("bhtd->bthd", x).reshape(batch, steps, heads * dim)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    if num_heads < 1:
        raise ValueError(f"num_heads must be positive, got {num_heads}")
    batch, steps, features = x.shape
    if features % num_heads:
        raise ValueError(f"E={features} is not divisible by num_heads={num_heads}")
    # Splitting one dimension in two is always possible with strides, whatever the layout.
    return x.view(batch, steps, num_heads, features // num_heads).permute(0, 2, 1, 3)


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.device != b.device:
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    if a.device.type == "meta":
        return sa is sb
    return sa.data_ptr() == sb.data_ptr()
