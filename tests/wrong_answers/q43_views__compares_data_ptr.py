"""Wrong: compares a.data_ptr() and b.data_ptr(), where the tensors start, not their storage."""

from solutions.q43_views import merge_heads, split_heads  # the rest as in the reference


def shares_storage(a, b):
    return a.data_ptr() == b.data_ptr()
