"""Wrong: calls .contiguous() after splitting the heads, which copies instead of a view."""

from solutions.q43_views import merge_heads, shares_storage  # the rest as in the reference


def split_heads(x, num_heads):
    b, t, e = x.shape
    if e % num_heads:
        raise ValueError("E must be divisible by num_heads")
    return x.view(b, t, num_heads, e // num_heads).transpose(1, 2).contiguous()
