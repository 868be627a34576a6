"""Kata 35: torch.tensor, torch.as_tensor, torch.zeros, and the trap of torch.Tensor.

`torch.tensor(data)` (lower case, a function) copies data and infers the dtype from it:
Python ints give int64, floats the default float dtype, bools bool, a NumPy array keeps
its dtype; a plain number gives a 0-dim tensor. `torch.as_tensor(data)` converts too, but
skips the copy when it can: a tensor or CPU array already of the right dtype and device
is shared. `torch.zeros(shape)` fills with zeros; `torch.empty(shape)` leaves whatever the
memory held.

`torch.Tensor(...)` (capital T, the class) is none of these. It always makes the default
float dtype (float32 unless `torch.set_default_dtype` changed it), whatever the data, so
class labels become floats; given sizes it returns uninitialised memory; and
`torch.Tensor(3)` is a tensor of *three* garbage values, not the number 3.

Task: four small creation helpers, each with the right constructor.
"""

import numpy as np
import torch

_Data = bool | int | float | list | tuple | np.ndarray


def from_data(data: _Data, device: torch.device | str | None = None) -> torch.Tensor:
    """A new tensor holding a copy of `data`, with the dtype inferred from it.

    - data: a Python bool, int or float, a (nested) list or tuple of them, or a NumPy array
      with non-negative strides (torch cannot read a reversed view such as `a[::-1]`, so such
      arrays are outside this contract: callers pass `a.copy()`). NumPy scalars
      (np.float64(0.5)), alone or in a list, are outside it too.
    - dtype: all bools -> torch.bool; all ints -> torch.int64; any float among them -> the
      default float dtype (torch.get_default_dtype(), normally float32); a NumPy array
      keeps its own dtype. An empty list gives shape (0,) and the default float dtype.
    - Shape follows the nesting: a plain number gives a 0-dim tensor, [1, 2, 3] shape (3,).
    - On `device`, made there (not made on the default device and moved); None means
      torch's default device, torch.get_default_device(): the CPU unless changed with
      torch.set_default_device. The same for every kind of data, a NumPy array included.
    - A copy: it never shares memory with a NumPy array passed in.

    >>> from_data([0, 2, 1])  # class labels stay int64
    tensor([0, 2, 1])
    >>> from_data(3).shape
    torch.Size([])
    """
    # TODO: one call does all of this.
    raise NotImplementedError


def as_tensor_shared(
    data: torch.Tensor | _Data,
    dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """`data` as a tensor of `dtype` on `device`, copying only when it must.

    - data: a tensor, or a NumPy array or Python data as for `from_data`.
    - dtype None keeps data's dtype (inferred as in `from_data` for Python data).
    - device None: the default device if one was set with torch.set_default_device, for
      every kind of data, a tensor included (as torch.as_tensor does); otherwise data's own
      device (the CPU for arrays and Python data). torch.set_default_device("cpu") counts
      as set: a tensor on a GPU then comes to the CPU. (torch.get_default_device() cannot
      tell that apart from no default at all; torch.as_tensor can.)
    - No copy when none is needed: if data is a tensor already of that dtype on that
      device, or a CPU NumPy array of that dtype wanted on the CPU, the result shares its
      memory (it may be data itself), whether dtype was given or left None, and for strided
      views (a transposed tensor or array) too. Otherwise the values are converted into a
      new tensor.
    - A tensor that requires grad stays attached to autograd, as torch.as_tensor leaves it:
      the result is data itself, or a conversion autograd records, so gradients reach data.
    - data is not modified.

    >>> t = torch.arange(3)
    >>> as_tensor_shared(t).data_ptr() == t.data_ptr()  # no copy
    True
    >>> as_tensor_shared(t, dtype=torch.float32)
    tensor([0., 1., 2.])
    """
    # TODO: the constructor that avoids copies.
    raise NotImplementedError


def zeros_for(shape: tuple[int, ...], like: torch.Tensor) -> torch.Tensor:
    """A tensor of `shape` filled with zeros, with like's dtype and on like's device.

    like's device wins even when torch.set_default_device names another one.

    - shape: a tuple of non-negative ints, possibly () (0-dim) or with a 0 size.
    - Every element is 0 (False for bool). An accumulator starts here, so uninitialised
      memory (torch.empty, torch.Tensor(*shape)) is not acceptable, and neither is an
      expanded view of one zero (`expand` gives elements that share memory: `acc += x`
      fails on it). The result is a tensor of its own, with memory for every element.
    - The result does not require grad, even if like does. like is not modified.

    >>> zeros_for((2, 3), torch.ones(1, dtype=torch.float64))
    tensor([[0., 0., 0.],
            [0., 0., 0.]], dtype=torch.float64)
    """
    # TODO: zeros of the given shape, like's dtype and device.
    raise NotImplementedError


def scalar_like(value: bool | int | float, like: torch.Tensor) -> torch.Tensor:
    """A 0-dim tensor holding `value`, with like's dtype and on like's device.

    Handy for constants combined with like (a temperature, a loss scale), so that no
    dtype promotion or device mismatch happens.

    - value: a Python number; it is converted to like's dtype directly, as exactly as that
      dtype allows (0.1 in float64 is the float64 nearest 0.1, not a float32 value widened).
    - Returns shape () (a single value, not a tensor of `value` elements), on like's device
      even when torch.set_default_device names another one, whatever like's shape (0-dim
      or empty too).
    - A new constant: like's values and graph play no part, and the result does not
      require grad, even if like does.

    >>> scalar_like(3, torch.zeros(4, dtype=torch.float16))
    tensor(3., dtype=torch.float16)
    """
    # TODO: a 0-dim tensor from a number.
    raise NotImplementedError
