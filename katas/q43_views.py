"""Kata 43: view, reshape, contiguous, and who owns the memory.

A tensor is a window on a block of memory (its storage): shape, strides and an offset
say where each element lives. `.view(...)`, `.transpose(...)`, slicing and `.t()` make new
windows on the same storage, with no copy, so writing through one changes the other.
`.view` only works when the new shape can be read from the existing strides: after a
transpose the elements to merge are no longer adjacent, and `.view` raises.
`.reshape` gives a view when it can and silently copies when it must;
`.contiguous()` copies unless the layout is already the plain row-major one.

Task: the two reshapes of multi-head attention, one of which must never copy, and a
test for whether two tensors share memory.
"""

import torch


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """Put the heads of an attention output back side by side.

    - x: [B, H, T, D], any dtype and layout (contiguous, or the transpose of a
      [B, T, H, D] tensor); any of B, H, T, D may be 0 (the result then has no elements).
    - Returns [B, T, H * D], x's dtype and device, with
      out[b, t, h * D + d] = x[b, h, t, d]. It may be a copy (for a contiguous x it has to
      be). x is not modified. Differentiable with respect to x: keep autograd's graph
      (no detach), so attention trains through it.

    >>> x = torch.arange(8).view(1, 2, 2, 2)  # B=1, H=2, T=2, D=2
    >>> merge_heads(x)
    tensor([[[0, 1, 4, 5],
             [2, 3, 6, 7]]])
    """
    # TODO: bring T before H, then merge H and D (which method can do that here?).
    raise NotImplementedError


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """Split the features of each time step into `num_heads` heads, without copying.

    - x: [B, T, E] with E divisible by num_heads, any layout: contiguous, a slice such
      as the q part of a fused qkv projection, or a transpose. B, T and E may be 0.
    - num_heads: a positive int.
    - Returns [B, H, T, D] with H = num_heads and D = E // H:
      out[b, h, t, d] = x[b, t, h * D + d].
    - The result is always a view of x: it shares x's memory (writing to it writes to x)
      and no data is copied, whatever x's layout. Like any view, it keeps autograd's
      graph: differentiable with respect to x (no detach).
    - Raises ValueError if num_heads < 1 or E is not divisible by num_heads.

    >>> x = torch.arange(8).view(1, 2, 4)  # B=1, T=2, E=4
    >>> split_heads(x, 2)[0]
    tensor([[[0, 1],
             [4, 5]],
    <BLANKLINE>
            [[2, 3],
             [6, 7]]])
    """
    # TODO: split the last dim into (H, D), then swap T and H; both steps are views.
    raise NotImplementedError


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether a and b are windows on the same storage (memory block).

    - a, b: tensors with at least one element each, on any device.
    - True when one is a view of the other, or both are views of one tensor: x and
      x.view(...), x[1:], x.t(), x[0] and x[1], x.detach(). False for x.clone() and for
      separately created tensors, even with equal values.
    - The memory block is what counts: two torch.from_numpy(array) tensors of one array
      share it (True), though each has a storage object of its own; so do
      torch.from_numpy(array) and torch.from_numpy(array[:2]), storages of different
      lengths that begin at one address. Storages over parts of one block that begin at
      different addresses (torch.from_numpy(array) and torch.from_numpy(array[1:])) are
      not asked for.
    - Meta tensors (device "meta") have no memory, and every data pointer there is 0: two
      of them share storage only when they are views of one tensor (there, compare the
      storage objects: `a.untyped_storage() is b.untyped_storage()`).
    - Returns a Python bool.

    >>> x = torch.zeros(3, 4)
    >>> shares_storage(x, x[1:].t()), shares_storage(x, x.clone())
    (True, False)
    """
    # TODO: compare where the storages begin, not where the tensors begin.
    raise NotImplementedError
