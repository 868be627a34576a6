"""Wrong: compares storage objects, so two torch.from_numpy tensors of one array, which share
one memory block through two storage objects, are said not to share it."""

from solutions.q43_views import merge_heads, split_heads  # the rest as in the reference


def shares_storage(a, b):
    return a.untyped_storage() is b.untyped_storage()
