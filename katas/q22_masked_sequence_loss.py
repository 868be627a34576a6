"""Kata 22: a loss over padded sequences that counts real tokens only.

Sequences in a batch have different lengths, so they are padded to a common length T and a
boolean mask [B, T] marks the real tokens (True) and the padding (False). Whatever the
model outputs at padded positions is meaningless, and so is the target there. The loss
must be the mean of the per-token losses over the real tokens of the whole batch:

    loss = sum of per-token losses at real tokens / number of real tokens

Two tempting shortcuts are wrong. Averaging each sequence first and then the sequences
gives a short sequence's tokens more weight than a long one's. Multiplying the per-token
losses by the mask lets padding in: 0 * inf is nan, and an out-of-range padded target
makes F.cross_entropy fail. Select the real tokens (boolean indexing, torch.where) instead.

Task: build the mask from sequence lengths, then write the masked loss for regression
(squared error) and for classification (cross-entropy).
"""

import torch


def length_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    """The [B, max_len] padding mask of sequences with the given lengths.

    - lengths: [B] tensor of any integer dtype (int64, int32, uint8, uint16, ...), each
      value in [0, max_len]; B may be 0. bool does not count as an integer dtype here: a
      bool tensor is a mask, not lengths, and is rejected.
    - max_len: a Python int that need not fit lengths' dtype: uint8 lengths [100, 255] with
      max_len 512 are valid (compare the values as integers; torch would convert 512 to
      uint8, where it wraps).
    - Returns a bool tensor [B, max_len] on lengths' device: mask[b, t] is True exactly
      when t < lengths[b] (real token), False at padding.
    - Raises ValueError if lengths is not a 1-D integer tensor (a 0-dim one included; bool,
      floating and complex dtypes), max_len < 0, or a length is negative or larger than
      max_len.

    >>> length_mask(torch.tensor([3, 1, 0]), max_len=4)
    tensor([[ True,  True,  True, False],
            [ True, False, False, False],
            [False, False, False, False]])
    """
    # TODO: compare a row of positions with a column of lengths (broadcasting).
    raise NotImplementedError


def masked_mse(pred: torch.Tensor, target: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean squared error over the real tokens of padded sequences.

    - pred, target: floating tensors of the same shape [B, T, *features] (no feature
      dims for one number per token, e.g. [B, T] or [B, T, D]), same dtype and device.
    - mask: bool tensor [B, T], True at real tokens; any pattern (not only a prefix).
    - The loss of one token is the mean of its squared errors over the feature elements;
      the result is the mean of those over all real tokens of the batch (each token
      counts once, whatever its sequence's length).
    - Padded positions may hold any finite values, however large (up to the dtype's
      largest, whose sum is inf):
      they change neither the loss nor the gradient, which is exactly 0 at padded
      positions of pred.
    - No real token at all (also B = 0 or T = 0): the loss is 0, not nan.
    - float16 and bfloat16: the loss is the float32 loss rounded once to pred's dtype. No
      intermediate value may overflow (or lose its low bits) where the loss would not:
      1000 squared errors of 100 give 100, not inf, and an error of 300 squares to 90000,
      beyond float16. Hint: subtract, square, sum and divide in float32; round at the end.
    - Returns a 0-dim tensor of pred's dtype on pred's device, differentiable with
      respect to pred. pred, target and mask are not modified.
    - Raises ValueError if pred and target shapes differ, pred has fewer than 2 dims,
      mask is not bool, or mask's shape is not pred.shape[:2].

    >>> pred = torch.tensor([[1.0, 2.0, 9.0], [4.0, 9.0, 9.0]])
    >>> target = torch.tensor([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    >>> masked_mse(pred, target, length_mask(torch.tensor([2, 1]), 3))  # (1 + 4 + 16) / 3
    tensor(7.)
    """
    # TODO: keep the real tokens only, then average their squared errors.
    raise NotImplementedError


def masked_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    """Cross-entropy over the real tokens of padded sequences.

    - logits: floating tensor [B, T, C] (C classes, last dim); target: int64 [B, T]
      class indices (torch.long, as F.cross_entropy and tokenisers use; not int32, not
      uint8, not class probabilities), in [0, C) at real tokens and anything at padded
      positions (-1, a pad id >= C, ...); mask: bool [B, T], True at real tokens, any
      pattern. All on the same device.
    - The loss of one token is the cross-entropy of its C logits against its target
      (F.cross_entropy may be used); the result is the mean of those over all real
      tokens of the batch.
    - Padded positions may hold any finite logits (± the dtype's largest, whose sum is
      inf) and any target:
      they change neither the loss nor the gradient, which is exactly 0 at padded
      positions of logits.
    - No real token at all (also B = 0 or T = 0): the loss is 0, not nan.
    - float16 and bfloat16: as for masked_mse, a sum may not overflow where the mean
      would not (1000 tokens that cost 100 each give 100, not inf).
    - Returns a 0-dim tensor of logits' dtype on logits' device, differentiable with
      respect to logits. logits, target and mask are not modified.
    - Raises ValueError if logits is not 3-D, target's dtype is not int64, target's shape
      is not [B, T], mask is not bool, or mask's shape is not [B, T].

    >>> logits = torch.zeros(2, 3, 4)  # uniform over 4 classes: every token costs log 4
    >>> target = torch.tensor([[1, 2, -1], [0, -1, -1]])
    >>> masked_cross_entropy(logits, target, target >= 0)
    tensor(1.3863)
    """
    # TODO: keep the real tokens only ([n_real, C] logits, [n_real] targets), then
    # average their cross-entropies.
    raise NotImplementedError
