"""Wrong: compares storage data pointers on the meta device too, where every pointer is 0, so
two separate meta tensors "share storage"."""

from solutions.q43_views import merge_heads, split_heads  # the rest as in the reference


def shares_storage(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
