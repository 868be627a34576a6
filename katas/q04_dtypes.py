"""Kata 4: dtypes decide memory, range and exactness.

Every tensor has one dtype for all its elements. It fixes how much memory the tensor
takes (2 bytes per element for float16 and bfloat16, 4 for float32, 8 for int64), the
range it can hold (float16 tops out at 65504), how finely it can tell numbers apart
(bfloat16 keeps only 8 significant bits) and whether arithmetic is exact (integers are;
converting big int64 values to a float is not). Mixed precision saves memory and time,
provided sums are accumulated in float32 and integer data stays integer.

An operation on two tensors of different dtypes computes in one dtype chosen by type
promotion: the higher category wins (bool < integer < floating), and within a category
the type that holds both (int32 + int64 is int64, float16 + float32 is float32; uint8 +
int8 is int16 and float16 + bfloat16 is float32, since neither holds the other). A Python
number or a 0-dim tensor only decides the dtype when its category is higher than the
tensors' with dimensions: `half_tensor * 0.5` stays float16, an int32 tensor + 2.5 becomes
the default float dtype (float32), and `/` on integers always gives a float.

Task: estimate memory from a dtype, take a mean that is safe in float16/bfloat16, divide
integers with the right rounding without leaving int64, and predict the dtype an
operation on two operands gives.

Rule for the whole kata: torch's public API only. Private torch names (`torch._C`,
`torch.ops`, `torch._foreach_norm` and the like) and names looked up from strings
(`getattr(torch, name)`, `importlib`) are refused anywhere in the module: they reach
the code the rules forbid unseen.
"""

import torch


def nbytes(shape: tuple[int, ...], dtype: torch.dtype) -> int:
    """Bytes that a tensor of this shape and dtype holds in its elements.

    - shape: a tuple of non-negative ints (or a torch.Size); () is a single element.
    - dtype: any torch dtype (float, bfloat16, int, bool, complex, ...).
    - Returns a Python int: number of elements times bytes per element. Works for sizes far
      too large to allocate, of any size (the element count may exceed int64, as for
      (10**10, 10**10)): do not create the tensor in memory.

    >>> nbytes((1024, 1024), torch.bfloat16)
    2097152
    """
    # TODO: number of elements times the size of one element of this dtype.
    raise NotImplementedError


def safe_mean(x: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    """Mean of x over `dim` (None: over all elements) that low precision cannot spoil.

    - x: a floating tensor (float16, bfloat16, float32 or float64), any shape, any device,
      with at least one element along the reduced dims.
    - float16 and bfloat16 are accumulated in float32: the result is the float32 mean,
      rounded once to x's dtype. (A float16 sum over 65504 is inf; a bfloat16 sum keeps
      8 significant bits; float16 has too small a range to hold a bfloat16 sum.) float32
      and float64 are averaged as they are; no float64 tensor is made for the other
      dtypes (MPS has none). NaN propagates: a mean over a NaN is NaN. The rule is the
      result; how you get it is yours. (Hint: torch's own x.mean() already accumulates
      float16 and bfloat16 in float32 on the CPU and CUDA and rounds once; x.sum() / n
      rounds the sum to x's dtype before dividing, inf past 65504 in float16; converting to
      float32 yourself makes it sure on every backend.)
    - Returns a tensor of x's dtype on x's device: 0-dim for dim=None, otherwise x's shape
      without `dim` (negative dims count from the end; every other dim kept, those of size
      1 included). x is not modified.

    >>> safe_mean(torch.full((1000,), 100.0, dtype=torch.float16))
    tensor(100., dtype=torch.float16)
    """
    # TODO: compute in float32 where x is float16/bfloat16, convert back at the end.
    raise NotImplementedError


def time_bucket(timestamps: torch.Tensor, width: int) -> torch.Tensor:
    """Index of the `width`-long bucket each integer timestamp falls in.

    - timestamps: a tensor of an integer dtype torch computes with (int64, int32, int16,
      int8, uint8), any shape, any device; values may be negative (before the epoch) and
      as large as int64 nanosecond timestamps. (uint16, uint32 and uint64 are not asked
      for: torch has almost no arithmetic for them.)
    - width: a positive Python int, of any size: it need not fit timestamps' dtype. A width
      that is not an int (2.5, True, a tensor) is not asked for.
    - Bucket k holds [k * width, (k + 1) * width), so the result is floor(t / width),
      exactly, for every value and every width: -1 with width 10 is in bucket -1, not 0,
      and int8 [5, -5] with width 1000 is [0, -1] (torch converts a Python number to the
      tensor's dtype, where 1000 wraps).
    - Returns a new tensor of timestamps' dtype, shape and device (never timestamps
      itself, nor memory shared with it, even for width 1). timestamps is not modified.
    - Raises ValueError if width < 1, TypeError if timestamps is not an integer tensor
      (floating, complex and bool tensors are not), an empty tensor included.

    >>> time_bucket(torch.tensor([-11, -1, 0, 9, 10]), 10)
    tensor([-2, -1,  0,  0,  1])
    """
    # TODO: integer division that rounds down and stays in the integer dtype.
    raise NotImplementedError


def result_dtype(
    a: torch.Tensor | bool | int | float,
    b: torch.Tensor | bool | int | float,
    *,
    divide: bool = False,
) -> torch.dtype:
    """The dtype of `a + b`, or of `a / b` with divide=True, by torch's promotion rules.

    - a, b: each a tensor (with dimensions, or 0-dim) or a Python bool, int or float; at
      least one is a tensor. Tensor dtypes: bool, uint8, int8, int16, int32, int64,
      float16, bfloat16, float32, float64 (complex and the rarer ones are not asked for).
    - Categories: bool < integer < floating. Operands in three ranks: tensors with
      dimensions, then 0-dim tensors, then Python numbers. Within one rank, the result is the
      higher category's dtype, or in one category the dtype that holds both: the larger one,
      except uint8 with int8 (int16) and float16 with bfloat16 (float32). An operand of a
      lower rank counts only where its category is higher than the result of the ranks above
      it; a Python float then stands for torch's default dtype (`torch.get_default_dtype()`),
      a Python int for int64, a Python bool for bool.
    - divide=True: `/` is true division, so a bool or integer result becomes the default
      float dtype instead; a floating one stays.
    - Returns a torch.dtype.

    Rules: reason on the dtypes. Do not call torch.result_type, torch.promote_types or
    torch.can_cast, and do not compute anything with tensors (no `(a + b).dtype`, no new
    tensors): read `.dtype` and `.dim()` (or `.ndim`) only.

    >>> result_dtype(torch.ones(3, dtype=torch.float16), 0.5)
    torch.float16
    >>> result_dtype(torch.ones(3, dtype=torch.int32), torch.tensor(2.0, dtype=torch.float64))
    torch.float64
    >>> result_dtype(torch.ones(3, dtype=torch.int64), 2, divide=True)
    torch.float32
    """
    # TODO: find each operand's dtype and rank, promote within ranks, then across them.
    raise NotImplementedError
