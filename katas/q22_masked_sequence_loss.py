"""Kata 22: choosing the loss for the task, and a loss over padded sequences.

The loss defines what the model is trained to do, and the task decides the loss. PyTorch
has each one as a module in torch.nn (nn.MSELoss, ...) and as a function in
torch.nn.functional (F.mse_loss, ...); the classification losses take raw logits, since
they apply the (log-)softmax or sigmoid themselves, in a numerically stable way.

    task                                loss                                target
    regression                          F.mse_loss                          floats, output's shape
    regression with outliers            F.huber_loss / F.smooth_l1_loss     floats, output's shape
    multi-class (one class per sample)  F.cross_entropy (logits [N, C])     int64 class indices [N]
    multi-label (any number of labels)  F.binary_cross_entropy_with_logits  float 0/1, [N, C]

Squared error punishes an error of 10 a hundred times as much as an error of 1, so a few
outliers dominate the gradient; Huber is squared for small errors and linear beyond
`delta`, so an outlier pulls no harder than a large ordinary error.

Cross-entropy wants the classes in dim 1: logits [N, C] with targets [N], and for one
class per position logits [N, C, d1, ...] with targets [N, d1, ...], e.g. [B, C, T]
against [B, T] for a sequence. A linear head gives [B, T, C]: move the classes to dim 1
(transpose(1, 2)) or flatten to [B*T, C] against [B*T] targets; but reshaping [B, C, T]
logits to [B*T, C] mixes classes and time steps.
Its targets are int64 class indices; float targets of the logits' shape are read as class
probabilities, a different loss. Softmax before F.cross_entropy applies it twice.

Multi-label is C independent yes/no questions, so each label gets its own sigmoid, not a
softmax that makes the labels compete. sigmoid followed by F.binary_cross_entropy breaks
at large logits: sigmoid(20) rounds to 1 in float32, F.binary_cross_entropy clamps the
log(0) of a wrong label at -100, so the loss is 100 whatever the logit (20 or 1e4) and its
gradient is 0. F.binary_cross_entropy_with_logits works from the logit and stays exact.

Sequences in a batch have different lengths, so they are padded to a common length T and a
boolean mask [B, T] marks the real tokens (True) and the padding (False). Whatever the
model outputs at padded positions is meaningless, and so is the target there. The loss
must be the mean of the per-token losses over the real tokens of the whole batch:

    loss = sum of per-token losses at real tokens / number of real tokens

Two tempting shortcuts are wrong. Averaging each sequence first and then the sequences
gives a short sequence's tokens more weight than a long one's. Multiplying the per-token
losses by the mask lets padding in: 0 * inf is nan, and an out-of-range padded target
makes F.cross_entropy fail. Select the real tokens (boolean indexing, torch.where) instead.

Task: `task_loss` picks and applies the right loss for each task; `masked_cross_entropy`
is the cross-entropy of padded sequences.
"""

import torch


def task_loss(task: str, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """The loss of `output` against `target` for `task`, as the torch builtin for it gives.

    task is exactly one of "regression", "regression_with_outliers", "multiclass",
    "multilabel" (the whole name, as written: "regression_l1" or "Regression" is none):

    - "regression": mean squared error. output: floating tensor of any shape; target: a
      tensor of output's shape and dtype.
    - "regression_with_outliers": Huber loss with delta = 1 (F.huber_loss; F.smooth_l1_loss
      with beta = 1 is the same function): error**2 / 2 where |error| <= 1, |error| - 1/2
      beyond. output and target as for "regression".
    - "multiclass": cross-entropy of raw logits, one class per sample (or per position).
      output: floating [N, C] or [N, C, d1, ...] (classes in dim 1); target: int64 class
      indices of output's shape without dim 1 ([N] or [N, d1, ...]), each in [0, C) (the
      caller's to ensure: the tests do not ask for a check, which would cost a device sync,
      nor forbid one).
    - "multilabel": binary cross-entropy of raw logits, each element its own yes/no label.
      output: floating [N, C] (any shape); target: a tensor of output's shape and dtype,
      1 where the label applies and 0 where not (values in [0, 1]).
    - Every loss is the mean over all its elements (positions for "multiclass"), torch's
      default reduction. output's values are finite, of any size: logits of ±1e4 and beyond
      give the exact loss, not a clamped one. An empty output gives nan, the builtin's mean of no
      elements.
    - The gradient is the builtin's in every floating dtype, also at exactly 0 (a logit of
      0, an error of 0) and at large values (an error of 4e4 in float16, whose square
      overflows: no NaN from the unselected branch of a torch.where).
    - Returns a 0-dim tensor of output's dtype on output's device, differentiable with
      respect to output. output and target are not modified, not even written with the
      same values (either may be a view: an expanded target cannot be written at all).
    - Raises ValueError (not a TypeError or IndexError from deeper down) if task is none
      of the four, output is not floating point (integer, bool, complex), or the target
      does not fit the task: for "regression", "regression_with_outliers" and
      "multilabel", target's shape or dtype differs from output's (equal, not merely
      broadcastable: an output [N, 1] against a target [N] would compare every pair; a
      float64 target against a float32 output is the caller's to convert, as are integer
      or bool 0/1 labels); for "multiclass", output has fewer than 2 dims (also 0-dim),
      target is not int64 (float, int32, uint8, ...), or target's shape is not output's
      shape without dim 1.

    >>> logits = torch.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    >>> task_loss("multiclass", logits, torch.tensor([0, 2]))  # int64 class indices
    tensor(0.6691)
    >>> task_loss("multilabel", logits, torch.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 0.0]]))
    tensor(0.5988)
    >>> task_loss("regression_with_outliers", torch.zeros(2), torch.tensor([0.5, 10.0]))
    tensor(4.8125)
    """
    # TODO: check the task and the target against the task's contract, then call the
    # torch.nn.functional loss that fits.
    raise NotImplementedError


def masked_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    """Cross-entropy over the real tokens of padded sequences.

    - logits: floating tensor [B, T, C] (C classes in the last dim, as a linear head
      gives them); target: int64 [B, T] class indices (torch.long, as F.cross_entropy
      and tokenisers use; not int32, not uint8, not class probabilities), in [0, C) at
      real tokens and anything at padded positions (-1, a pad id >= C, ...); mask: bool
      [B, T], True at real tokens, any pattern. All on the same device.
    - The loss of one token is the cross-entropy of its C logits against its target
      (F.cross_entropy may be used); the result is the mean of those over all real
      tokens of the batch. Hint: boolean indexing (logits[mask]) waits for the device to
      count the tokens; that is allowed, and so is torch.where, which does not.
    - Padded positions may hold any finite logits (± the dtype's largest, whose sum is
      inf) and any target:
      they change neither the loss nor the gradient, which is exactly 0 at padded
      positions of logits.
    - Real tokens may have logits of any finite size (±1e4: exp overflows even float64);
      their loss and gradient stay exact.
    - No real token at all (also B = 0 or T = 0): the loss is 0 in logits' dtype, not nan.
    - float16 and bfloat16: a sum may not overflow where the mean would not (1000 tokens
      that cost 100 each give 100, not inf), neither may the count (70000 real tokens are
      more than float16 holds: count in an integer dtype or float32), and a token's share
      of the mean may not underflow (70000 tokens that cost 2e-4 each give 2e-4, not 0).
      Hint: sum and divide in float32, then round once.
    - Returns a 0-dim tensor of logits' dtype on logits' device, differentiable with
      respect to logits. logits, target and mask are not modified, not even written with
      the same values.
    - Raises ValueError if logits is not 3-D, target's dtype is not int64, target's shape
      is not [B, T], mask's dtype is not bool (uint8 and 0/1 integers included), or mask's
      shape is not [B, T] (exactly: [B, 1] or [T], which broadcast, are not).

    >>> logits = torch.zeros(2, 3, 4)  # uniform over 4 classes: every token costs log 4
    >>> target = torch.tensor([[1, 2, -1], [0, -1, -1]])
    >>> masked_cross_entropy(logits, target, target >= 0)
    tensor(1.3863)
    """
    # TODO: keep the real tokens only ([n_real, C] logits, [n_real] targets), then
    # average their cross-entropies.
    raise NotImplementedError
