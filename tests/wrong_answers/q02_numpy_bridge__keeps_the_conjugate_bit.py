"""Wrong: detach().cpu().numpy() refuses z.conj(), whose conjugate bit NumPy cannot hold."""

from solutions.q02_numpy_bridge import to_tensor  # the rest as in the reference


def to_numpy(t):
    return t.detach().cpu().numpy()


def to_numpy_copy(t):
    return to_numpy(t).copy()
