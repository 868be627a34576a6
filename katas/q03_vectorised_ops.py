"""Kata 3: the tensor operations that replace Python loops.

Most PyTorch work is a handful of operations applied to whole tensors at once:
elementwise arithmetic that broadcasts, reductions along a dimension (`sum`, `mean`,
`var`), and matrix products (`@`, which batches over leading dimensions). Written this
way, code runs as a few fast kernels on any device; written as Python loops over rows,
it runs one tiny step at a time.

The other half is shape manipulation, which moves no arithmetic but decides where every
element goes. `reshape` (and `view`) read the same elements in the same row-major order
under a new shape; `permute` (and `transpose`) reorder the dimensions, so the elements
change places. `torch.cat` joins tensors along a dimension they already have; `torch.stack`
adds a new one. Swap one for the other (a reshape where a permute is needed, cat for
stack) and the shapes often still fit: the code runs and scrambles the data.

Task: three everyday computations, each in a few tensor operations, and two rearrangements
(image patches, interleaved rows), all with no Python loops.

Rule for the whole kata: torch's public API only. Private torch names (`torch._C`,
`torch.ops`, `torch._foreach_norm` and the like) and names looked up from strings
(`getattr(torch, name)`, `importlib`) are refused anywhere in the module: they reach
the code the rules forbid unseen.
"""

import torch


def pairwise_sq_dists(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Squared Euclidean distance between every row of x and every row of y.

    - x: [N, D], y: [M, D], floating, same dtype and device; N, M or D may be 0.
    - Returns [N, M] with out[i, j] = sum_d (x[i, d] - y[j, d]) ** 2, in x's dtype, on
      x's device. x and y are not modified. Computing in a wider dtype and converting the
      result back is allowed, not required: float16 rows whose |x_i|^2 overflows float16
      (norms above about 255) are outside the contract.
    - Use the identity |x_i - y_j|^2 = |x_i|^2 + |y_j|^2 - 2 x_i . y_j: one matrix product
      for all the dot products. Rule: no tensor larger than the biggest of [N, M], [N, D]
      and [M, D]; never build the [N, M, D] tensor of all differences, not even in pieces
      (on a real batch that is what runs out of memory).
    - Never negative: in floating point the identity can come out slightly below zero for
      points that (nearly) coincide; such entries must come out as 0. Every other
      distance stays as computed, small ones too (no rounding of small values to 0), and
      NaN ones (from a NaN coordinate) too.

    Rules: no Python loops; do not call torch.cdist, nor F.pairwise_distance or F.pdist
    (distances under other names).

    >>> pairwise_sq_dists(torch.tensor([[0.0, 0.0], [1.0, 1.0]]), torch.tensor([[1.0, 0.0]]))
    tensor([[1.],
            [1.]])
    """
    # TODO: squared norms of the rows, one matrix product, combine, keep it >= 0.
    raise NotImplementedError


def standardize_columns(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    """Give every column of x mean 0 and variance (about) 1.

    - x: [N, D] floating, N >= 1, any layout (possibly non-contiguous).
    - eps >= 0 is added to the variance. With eps > 0 a constant column (and so any
      column when N = 1) comes out as zeros, to within round-off (the float mean of equal
      values can be off by an ulp). With eps = 0 a constant column is 0 / 0: its result
      is not defined (NaN or inf), so pass eps > 0 for data that may have one.
    - Returns [N, D], same dtype and device:
      out[:, j] = (x[:, j] - mean_j) / sqrt(var_j + eps), where mean_j and var_j are the
      mean and the population variance (divide by N, not N - 1) of column j.
    - Stable for columns with a large offset common to the column's values (values like
      1e4 + noise in one column, -1e4 + noise in the next), in every floating dtype
      (float64 columns like 1e8 + noise too). In float16 a column's sum, or the sum of its
      squared deviations, may pass 65504 where its mean and variance fit (256 values near
      300): those must not overflow (torch's mean and var accumulate in float32).
    - x is not modified.

    Rules: no Python loops.

    >>> standardize_columns(torch.tensor([[1.0, 10.0], [3.0, 30.0]]), eps=0.0)
    tensor([[-1., -1.],
            [ 1.,  1.]])
    """
    # TODO: reduce over dim 0 (keep the dim, or rely on broadcasting), then normalise.
    raise NotImplementedError


def batched_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Dot product of every query row with every key row, for a whole batch at once.

    - q: [..., T, D], k: [..., S, D], floating, same dtype and device. The leading
      (batch) dimensions broadcast against each other and may be absent: q [T, D] with
      k [B, H, S, D] is fine.
    - Returns [..., T, S] (the broadcast batch shape, then T, S) with
      out[..., t, s] = sum_d q[..., t, d] * k[..., s, d]. q and k are not modified.

    Rules: no Python loops; do not call torch.einsum: this is one matrix product with `@`
    once k's last two dimensions are swapped. No tensor larger than the result, or than q
    or k broadcast to the batch shape (`@` copies q when both batch shapes broadcast);
    never the [..., T, S, D] tensor of all products.

    >>> q, k = torch.ones(2, 3, 4), torch.ones(2, 5, 4)
    >>> batched_scores(q, k).shape
    torch.Size([2, 3, 5])
    """
    # TODO: swap k's last two dimensions, then one `@`.
    raise NotImplementedError


def to_patches(images: torch.Tensor, patch: int) -> torch.Tensor:
    """Cut every image into patch × patch squares, one row of features per square, as a
    vision transformer takes them.

    - images: [N, C, H, W] of any dtype, any layout; patch >= 1 divides H and W (other
      sizes are not asked for).
    - Returns [N, L, C * patch * patch] with L = (H // patch) * (W // patch), in images'
      dtype on its device: the squares in row-major order over the grid, each flattened
      channel by channel, then row by row:
      out[n, i * (W // patch) + j, (c * patch + dy) * patch + dx]
      = images[n, c, i * patch + dy, j * patch + dx]. images is not modified.

    Rules: no Python loops; do not call F.unfold, nn.Unfold, Tensor.unfold nor
    F.pixel_unshuffle (the same rearrangement under another name). Hint: a
    reshape that splits H and W into (grid, patch), a permute that moves both grid
    dimensions in front of the channels, a reshape that merges. A reshape alone gives the
    right shape and the wrong pixels.

    >>> x = torch.arange(16.0).reshape(1, 1, 4, 4)
    >>> to_patches(x, 2)[0, 1]  # the top-right square
    tensor([2., 3., 6., 7.])
    """
    # TODO: reshape to [N, C, H/p, p, W/p, p], permute the grid forward, reshape.
    raise NotImplementedError


def interleave_rows(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The rows of a and b taken in turn: a[0], b[0], a[1], b[1], ...

    - a, b: [N, ...] of the same shape, dtype and device (any dtype; N, or any other
      dimension, may be 0).
    - Returns [2 * N, ...], a's dtype, on a's device: out[2 * i] = a[i] and
      out[2 * i + 1] = b[i]. a and b are not modified.

    Rules: no Python loops. Hint: torch.cat((a, b)) puts all of a before all of b;
    torch.stack((a, b), dim=1) pairs a[i] with b[i] in a new dimension, which a reshape
    then merges with N.

    >>> interleave_rows(torch.tensor([[1, 1], [2, 2]]), torch.tensor([[7, 7], [8, 8]]))
    tensor([[1, 1],
            [7, 7],
            [2, 2],
            [8, 8]])
    """
    # TODO: stack on a new dim 1, then merge it with dim 0.
    raise NotImplementedError
