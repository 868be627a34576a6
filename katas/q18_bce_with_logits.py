"""Kata 18: binary cross-entropy from logits, stable for any logit, with pos_weight.

Binary cross-entropy is the loss for yes/no targets, one or many per sample (multi-label
classification: each class is its own yes/no question). With p = sigmoid(x) and a target
y in [0, 1] it is -(y * log p + (1 - y) * log(1 - p)). Written like that it breaks in
float32: sigmoid(100) rounds to exactly 1, so log(1 - p) = log(0) = -inf, and 0 * -inf is
nan. Working from the logit x avoids both problems:

    -log sigmoid(x)     = softplus(-x)      softplus(z) = log(1 + exp(z))
    -log(1 - sigmoid(x)) = softplus(x)                  = max(z, 0) + log1p(exp(-|z|))

The last form only ever exponentiates a number <= 0, so it is finite for every finite x.
Mind its kinks at z = 0: softplus is smooth there (slope 1/2), but autograd differentiates
max and |z| as written and picks one slope at the kink: clamp(min=0) gets 1 and relu 0,
while torch.maximum(z, torch.zeros_like(z)) splits a tie evenly and gets 1/2. A logit of
exactly 0 is common (a zero-initialised last layer outputs it).

pos_weight rescales the positive term, -pos_weight * y * log p: with 1 positive per 10
negatives in a class, pos_weight = 10 makes both sides weigh the same in the loss.

Task: write `bce_with_logits` so that it equals F.binary_cross_entropy_with_logits
(pos_weight and reductions included), is finite at logits of ±100 and beyond, and gives
the same gradients through autograd.

Rule for the whole kata: torch's public API only. Private torch names (`torch._C`,
`torch.ops`, `torch._foreach_norm` and the like) and names looked up from strings
(`getattr(torch, name)`, `importlib`) are refused anywhere in the module: they reach
the code the rules forbid unseen.
"""

import torch


def bce_with_logits(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    pos_weight: torch.Tensor | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    """Binary cross-entropy of `logits` against `target`, like F.binary_cross_entropy_with_logits.

    - logits: floating tensor (float32 or float64) of any shape, e.g. [N] for one yes/no
      label per sample or [N, C] for C labels per sample; every value finite, however
      large (±100, ±1e4 and ±1e30 in float32 must work: no clamp).
    - target: same shape (exactly: an [N] target against [N, 1] logits is refused, though
      the two would broadcast), dtype and device as logits, values in [0, 1] (soft labels
      such as 0.9 are allowed).
    - pos_weight: None (all ones) or a tensor of logits' dtype and device that broadcasts
      to logits' shape, usually [C], one weight per label (the last dimension).
    - Element-wise: loss = -(pos_weight * y * log sigmoid(x) + (1 - y) * log(1 - sigmoid(x))).
    - reduction: "none" returns the element-wise losses (logits' shape); "sum" their sum;
      "mean" their mean over all elements (nan for an empty input, as torch.mean gives).
    - Returns a tensor of logits' dtype on logits' device. Gradients with respect to logits
      and to target (soft labels produced upstream, as in distillation) flow through
      autograd, are finite, and equal PyTorch's (to float rounding) everywhere, at logits of
      exactly 0 included (torch gives none with respect to pos_weight: not required). Losses
      and gradients are accurate relative to their size when tiny (a logit of 20 with target
      1, or of -20 with target 0, costs about 2e-9, not 0): there the float64 values are the
      measure, not PyTorch's float32 gradient, which flushes such slopes to 0.
      logits, target and pos_weight are not modified.
    - Raises ValueError if target's shape differs from logits', pos_weight would broadcast
      with logits to a larger shape than logits' (torch refuses it too),
      or reduction is not exactly one of "mean", "sum", "none" (no other case or spacing).
      A pos_weight that does not broadcast with logits at all breaks the precondition
      above: any error will do there (torch's own RuntimeError included).

    Rules: do not call F.binary_cross_entropy_with_logits or F.binary_cross_entropy (nor
    nn.BCEWithLogitsLoss / nn.BCELoss), F.logsigmoid, F.softplus, nor any way torch
    offers a log-sum-exp (torch.logaddexp, torch.logsumexp, torch.logcumsumexp, softmax,
    log_softmax in any spelling, torch.sparse's included, attention, the
    cross-entropies) or a softplus (the soft-margin losses, F.mish): softplus under other
    names. Write the stable form
    yourself. Hint, not rule: exp, log1p, abs and torch.maximum make it; any other
    primitives that give the same values and gradients (torch.where with a branch kept
    finite, say) will do.

    >>> logits = torch.tensor([100.0, -100.0, 0.0])
    >>> bce_with_logits(logits, torch.tensor([0.0, 1.0, 1.0]), reduction="none")
    tensor([100.0000, 100.0000,   0.6931])
    >>> bce_with_logits(logits, torch.tensor([0.0, 1.0, 1.0]), pos_weight=torch.tensor(2.0))
    tensor(100.4621)
    """
    # TODO: validate the inputs, build softplus(x) and softplus(-x) in the stable form, weight
    # the positive term by pos_weight, and reduce.
    raise NotImplementedError
