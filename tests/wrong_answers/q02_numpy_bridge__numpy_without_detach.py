"""Wrong: calls .cpu().numpy() without detach(), which fails for a tensor that requires grad."""

from solutions.q02_numpy_bridge import to_tensor  # the rest as in the reference


def to_numpy(t):
    return t.cpu().numpy()


def to_numpy_copy(t):
    return t.cpu().numpy().copy()
