"""Kata 42: indexing beyond x[i].

PyTorch indexing follows NumPy: slices (`x[:, 1:3]`, `x[..., ::2]`) give views, integer
and boolean tensors as indices pick elements (and copy), and `...` stands for "all the
dimensions in between", so one expression works for any number of leading dims. Two
functions pick or add along a dimension with an index tensor of the same rank:
`gather` reads `out[b, j] = x[b, index[b, j]]` and `scatter_add_` accumulates
`out[b, index[b, j]] += src[b, j]`, counting repeated indices every time (unlike
`out[rows, cols] += 1`, which counts a repeated index once).

Task: four batch operations on padded sequences and labels, without looping over the
batch in Python.

Rule for the whole kata: torch's public API only. Private torch names (`torch._C`,
`torch.ops`, `torch._foreach_norm` and the like) and names looked up from strings
(`getattr(torch, name)`, `importlib`) are refused anywhere in the module: they reach
the code the rules forbid unseen.
"""

import torch


def last_valid(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """The last valid time step of each sequence in a padded batch.

    - x: [B, T, D] (B >= 0, D >= 0), any dtype, any layout; sequence b is valid at steps
      0 .. lengths[b]-1 and padding after that.
    - lengths: [B] int64 on x's device, 1 <= lengths[b] <= T.
    - Returns [B, D], x's dtype and device: out[b] = x[b, lengths[b] - 1].
      x and lengths are not modified. (Whether out shares memory with x is not asked about.)
      Like any pick, it keeps autograd's graph: differentiable with respect to a floating x
      (the last hidden state of an RNN trains the RNN through it; no detach, no .data).

    Rules: no Python loops; pick the step with `gather` or an integer index per dimension:
    the result must come out of that pick (masking the other steps and summing over time
    does not meet the rule, and turns -0.0 into +0.0).

    >>> x = torch.arange(12).view(2, 3, 2)
    >>> last_valid(x, torch.tensor([1, 3]))
    tensor([[ 0,  1],
            [10, 11]])
    """
    # TODO: one index per sequence, shaped so that gather picks all D features.
    raise NotImplementedError


def valid_steps(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """All valid time steps of a padded batch, packed into one tensor.

    - x: [B, T, D] (B >= 0, D >= 0); lengths: [B] int64 on x's device, 0 <= lengths[b] <= T.
    - Returns [lengths.sum(), D], x's dtype and device: the valid steps of sequence 0 in
      time order, then those of sequence 1, and so on. x is not modified. (Whether the
      result shares memory with x is not asked about.) Differentiable with respect to a
      floating x, as indexing is (no detach, no .data).

    Rules: no Python loops: build a [B, T] boolean mask (by broadcasting) and index with it.

    >>> x = torch.arange(6).view(2, 3, 1)
    >>> valid_steps(x, torch.tensor([2, 1])).flatten()
    tensor([0, 1, 3])
    """
    # TODO: mask[b, t] = t < lengths[b], then x[mask].
    raise NotImplementedError


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    """Rotate each consecutive pair of features by 90 degrees: (a, b) -> (-b, a).

    - x: [..., 2K], floating or signed integer, any number of leading dims (including
      none), any layout.
    - Returns a new tensor of x's shape, dtype and device with
      out[..., 2i] = -x[..., 2i + 1] and out[..., 2i + 1] = x[..., 2i]. x is not modified.
      Differentiable with respect to a floating x (no detach, no .data).
    - Raises ValueError if the last dimension has odd size.

    Rules: no Python loops; use `...` so that any rank works.

    >>> rotate_pairs(torch.tensor([[1.0, 2.0, 3.0, 4.0]]))
    tensor([[-2.,  1., -4.,  3.]])
    """
    # TODO: x[..., 0::2] are the first elements of the pairs, x[..., 1::2] the second.
    raise NotImplementedError


def batch_histogram(labels: torch.Tensor, num_bins: int) -> torch.Tensor:
    """Count how often each label occurs in each row.

    - labels: [B, N] int64, values in [0, num_bins); N may be 0.
    - Returns [B, num_bins] int64 on labels' device: out[b, k] = number of j with
      labels[b, j] == k. labels is not modified.

    Rules: no Python loops; the counts must come out of a scatter-add, an operation that
    adds at the labels' positions and counts a repeated label every time: `scatter_add_`
    or `scatter_add` (Tensor method or torch function), `scatter_reduce(..., "sum")`,
    `index_add_`, or `index_put_` / `put_` with accumulate=True, in place or out of place.
    Counting another way (comparing with every bin and summing, sorting and searchsorted)
    does not meet the rule, nor do torch.bincount, torch.histc, torch.histogram and
    F.one_hot.

    >>> batch_histogram(torch.tensor([[0, 2, 2], [1, 1, 1]]), 3)
    tensor([[1, 0, 2],
            [0, 3, 0]])
    """
    # TODO: zeros of [B, num_bins], then scatter_add_ ones along dim 1.
    raise NotImplementedError
