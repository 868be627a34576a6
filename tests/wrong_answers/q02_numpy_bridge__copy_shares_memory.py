"""Wrong: to_numpy_copy returns .numpy() as is, which on the CPU shares the tensor's memory."""

from solutions.q02_numpy_bridge import to_numpy, to_tensor  # the rest as in the reference


def to_numpy_copy(t):
    return t.detach().cpu().numpy()
