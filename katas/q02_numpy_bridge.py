"""Kata 2: tensors and NumPy arrays.

A PyTorch tensor is an n-dimensional array like a NumPy array, with two extra powers: it
can live on an accelerator (a GPU) and it can take part in autograd. On the CPU the two
can share one block of memory: `torch.from_numpy` and `Tensor.numpy()` wrap the other's
memory without copying, so a write through one shows in the other. The extra powers get
in the way of `.numpy()`: it refuses a tensor that requires grad (detach it from the graph
first) and a tensor on a GPU (bring it to the CPU first, which copies).

The defaults differ too: NumPy's floats are float64, torch's float32. A bridge keeps the
dtype, so `np.random.rand(...)` becomes a float64 tensor, and a float32 model refuses it
("mat1 and mat2 must have the same dtype"): convert where the data enters the model
(`.float()`), not by making the model float64, which doubles its memory and slows it down.

Task: write three bridge functions, each with a clear promise about copying.
"""

import numpy as np
import torch


def to_tensor(array: np.ndarray, device: torch.device | str | None = None) -> torch.Tensor:
    """The array as a tensor on `device` (None: the CPU), same shape, values and dtype.

    None means the CPU even when torch's default device is another one
    (`torch.set_default_device`, `with torch.device(...)`).

    - array: a writable NumPy array of a dtype PyTorch supports, any shape (0-D and empty
      included: the same rules hold); slices and transposes are fine (strides must not be
      negative). A read-only array is not asked for (torch warns that it cannot wrap one safely).
    - device: a torch.device, a string such as "cpu" or "cuda:0", or None. (The CPU named
      with an index, "cpu:0", is not asked about: torch itself copies there, and sharing
      or copying are both accepted.)
    - The dtype is kept: float64 stays torch.float64, int32 stays torch.int32, uint32 stays
      torch.uint32, and so on.
    - On the CPU there is no copy: the tensor shares the array's memory, so a write through
      either one shows in the other.
    - On any other device the values are copied there (they have to be).
    - The call itself does not modify the array.

    >>> a = np.zeros(3)
    >>> t = to_tensor(a)
    >>> a[0] = 5.0
    >>> t
    tensor([5., 0., 0.], dtype=torch.float64)
    """
    # TODO: wrap the array without copying on the CPU; copy it to any other device.
    raise NotImplementedError


def to_numpy(t: torch.Tensor) -> np.ndarray:
    """t's values as a NumPy array, for any dense tensor: one that requires grad, one on a
    GPU. (Sparse layouts are not asked about.)

    Any tensor includes one whose conjugation is only a flag (`z.conj()` sets the
    "conjugate bit", its `.imag` the "negative bit"): the array holds the values t shows.

    - Same shape; the NumPy twin of t's dtype (torch.float64 -> float64, torch.int64 ->
      int64, torch.uint16 -> uint16, torch.bool -> bool, ...). bfloat16 is not supported:
      NumPy has no such type.
    - For a CPU tensor there is no copy: the array shares t's memory, so a write through
      either one shows in the other. The one exception, on every device: a flag such as
      the conjugate bit, which NumPy lacks, is applied in a copy. From another device the
      values are copied to the CPU, and that copy is complete when the array is returned
      (a non_blocking copy from a GPU may not be yet).
    - t is left as it was: still on its device, still requiring grad if it did.

    >>> w = torch.ones(2, requires_grad=True)
    >>> to_numpy(w)
    array([1., 1.], dtype=float32)
    """
    # TODO: get a CPU tensor outside autograd, then its NumPy array.
    raise NotImplementedError


def to_numpy_copy(t: torch.Tensor) -> np.ndarray:
    """Like `to_numpy`, but the array never shares memory with t, on any device.

    - Same shape, values and (NumPy) dtype as `to_numpy(t)`.
    - "Never shares memory" is what counts, not who owns the buffer: an array with its own
      data (`.copy()`) and the array of a fresh tensor (`t.detach().clone()`) both qualify.
    - Writing to the array later never changes t, and changing t later never changes
      the array: it is a snapshot, safe to keep and to edit.
    - t is left as it was.

    >>> t = torch.zeros(2)
    >>> a = to_numpy_copy(t)
    >>> a[0] = 1.0
    >>> t
    tensor([0., 0.])
    """
    # TODO: return an array that shares no memory with t.
    raise NotImplementedError
