"""Wrong: merges H and D with reshape(b, t, -1): -1 cannot be inferred for a tensor of no
elements."""

from solutions.q43_views import shares_storage, split_heads  # the rest as in the reference


def merge_heads(x):
    b, _, t, _ = x.shape
    return x.transpose(1, 2).reshape(b, t, -1)
