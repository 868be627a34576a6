"""Wrong: splits E with view(b, t, h, -1), which cannot infer -1 for a tensor of no elements."""

from solutions.q43_views import merge_heads, shares_storage  # the rest as in the reference


def split_heads(x, num_heads):
    b, t, e = x.shape
    if num_heads < 1 or e % num_heads:
        raise ValueError(f"E = {e} is not divisible by num_heads = {num_heads}")
    return x.view(b, t, num_heads, -1).transpose(1, 2)
