"""Wrong: compares the tensors' ._base (or their start), so x.detach()[1:] and x[2:] seem
unrelated: detach() shares the storage without being a view of x."""

from solutions.q43_views import merge_heads, split_heads


def shares_storage(a, b):
    root_a = a if a._base is None else a._base
    root_b = b if b._base is None else b._base
    return root_a is root_b or a.data_ptr() == b.data_ptr()
