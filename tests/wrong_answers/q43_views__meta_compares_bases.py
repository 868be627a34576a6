"""Wrong: on meta tensors compares the ._base roots, so x and x.detach() (no _base) differ."""

from solutions.q43_views import merge_heads, split_heads  # the rest as in the reference


def shares_storage(a, b):
    if a.device != b.device:
        return False
    if a.device.type == "meta":
        root_a = a if a._base is None else a._base
        root_b = b if b._base is None else b._base
        return root_a is root_b
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
