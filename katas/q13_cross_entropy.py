"""Kata 13: cross-entropy from logits, written with the log-sum-exp trick.

Cross-entropy is the loss for single-label classification: the model outputs one raw
score (logit) per class, and the loss of a sample is -log softmax(logits)[target], which
equals logsumexp(logits) - logits[target]. Computed naively, exp() overflows to inf for
logits around 90 in float32 (and underflows to 0 for very negative ones), so the loss
turns into inf or nan. Subtracting each row's maximum first keeps every exponent <= 0
without changing the result; that is the log-sum-exp trick, and it is what
F.cross_entropy does inside.

Three options of F.cross_entropy are part of the task:
- weight: one weight per class, the usual answer to imbalanced classes: a rare class gets
  a larger weight (say N / (C × its count)), so that its few samples pull on the model as
  hard as the many of a common class; the mean becomes a weighted mean;
- ignore_index: samples whose target equals it (padding, unlabelled data) add nothing
  to the loss and are not counted in the mean;
- label smoothing: the target distribution puts 1 - ε on the true class and spreads ε
  uniformly over all C classes (the true class included).

Cross-entropy is the loss when each sample has one true class; when the target is itself a
distribution, the loss that measures the distance between two distributions is the
Kullback-Leibler divergence, KL(p || q) = sum over c of p[c] * (log p[c] - log q[c]).
Knowledge distillation uses both: a small student learns from the hard labels
(cross-entropy) and from a large teacher's softened probabilities, softmax(logits / T) at a
temperature T > 1 that shows how the teacher ranks the wrong classes (KL). F.kl_div is easy
to misuse: its *input* is the student's log-probabilities and its *target* the teacher's
probabilities (it computes KL(target || input)), and reduction="batchmean" gives the
divergence per sample ("mean" also divides by the number of classes).

Task: write `cross_entropy` so that it equals F.cross_entropy for class-index targets,
stays finite for huge logits, and gives the same gradients through autograd; and
`distillation_loss`, which combines torch's own losses the way distillation needs them.

Rule for the whole kata: torch's public API only. Private torch names (`torch._C`,
`torch.ops`, `torch._foreach_norm` and the like) and names looked up from strings
(`getattr(torch, name)`, `importlib`) are refused anywhere in the module: they reach
the code the rules forbid unseen.
"""

import torch


def cross_entropy(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    weight: torch.Tensor | None = None,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
    reduction: str = "mean",
) -> torch.Tensor:
    """Cross-entropy of `logits` against class indices `target`, like F.cross_entropy.

    - logits: [N, C] floating tensor (float32 or float64), N >= 0 samples, C >= 1 classes,
      every value finite (however large: ±1e4 in float32 must work, and rows whose sum
      passes the dtype's largest value, such as [3e38, 3e38, 3e38]).
    - target: [N] int64 class indices, each in [0, C) or equal to `ignore_index`;
      on the same device as logits. `ignore_index` may itself be a class number.
    - Per sample i with target y, with log p_i = log_softmax(logits[i]) and ε =
      label_smoothing: loss_i = -(1 - ε) * log p_i[y] - ε * mean over c of log p_i[c].
      Samples with target == ignore_index get loss 0 and are not counted.
    - weight: None, or a [C] tensor of logits' dtype and device, finite values >= 0, one
      per class. Each class's terms are multiplied by its weight: loss_i = -(1 - ε) *
      weight[y] * log p_i[y] - ε * mean over c of weight[c] * log p_i[c], and "mean"
      divides the sum by the total weight of the samples that are not ignored, the sum of
      weight[y_i] over them, not by their number (weights all 1 give the plain loss).
      (A class weight of 0 where that class's log-probability is -inf is not asked about.)
    - A term whose factor (1 - ε or ε) is 0 adds nothing (ε = 0: the smoothing term; ε = 1:
      the -log p_i[y] term), even where it is infinite (at ε = 1, nan where F.cross_entropy
      itself gives nan is accepted too). Otherwise finite logits never give nan: where two
      logits of a row differ by more than the dtype's largest value (3e38 and -3e38 in
      float32), a log-probability overflows to -inf and a loss whose term of factor > 0
      holds it is inf (as F.cross_entropy gives it; its exact finite value is fine too).
    - reduction: "none" returns the [N] per-sample losses (0 at ignored samples);
      "sum" their sum; "mean" their sum divided by the number of samples that are not
      ignored (their total weight, with `weight`). When every sample is ignored (or N = 0)
      the mean is 0/0 = nan, exactly as F.cross_entropy returns; "sum" is then 0, and the
      gradient 0 in every reduction.
    - Returns a tensor with logits' dtype, on logits' device: 0-dim for "mean"/"sum",
      [N] for "none". Gradients with respect to logits flow through autograd (finite
      for finite logits). logits and target are not modified.
    - Raises ValueError if logits is not 2-D, target's shape is not [N], target's dtype
      is not int64, reduction is not exactly one of "mean", "sum", "none" (no other case or
      spacing), label_smoothing is outside [0, 1] (NaN included), or weight is given with
      a shape other than [C].

    Rules: do not call F.cross_entropy, F.nll_loss, nn.CrossEntropyLoss, softmax, softmin,
    log_softmax, logsumexp, logcumsumexp or logaddexp, in any spelling (torch.*, F.*,
    torch.special.*, torch.sparse.*, tensor methods), nor attention
    (F.scaled_dot_product_attention, a softmax inside), nor softplus and logsigmoid
    (logaddexp(0, x) under other names: log_softmax of two classes is a logsigmoid) or the
    losses built on them (binary_cross_entropy_with_logits, the soft-margin losses, mish):
    every way torch offers a log-sum-exp. Write the log-sum-exp with the max shift yourself.

    >>> logits = torch.tensor([[2.0, 0.0, 0.0], [1e4, 0.0, -1e4]])
    >>> cross_entropy(logits, torch.tensor([0, 1]), reduction="none")
    tensor([2.3954e-01, 1.0000e+04])
    >>> cross_entropy(logits, torch.tensor([0, -100]))
    tensor(0.2395)
    >>> uniform = torch.zeros(1, 3)  # every class has probability 1/3: a loss of log 3
    >>> cross_entropy(torch.cat([logits[:1], uniform]), torch.tensor([0, 1]),
    ...               weight=torch.tensor([1.0, 3.0, 1.0]))  # (0.2395 + 3 log 3) / (1 + 3)
    tensor(0.8838)
    """
    # TODO: validate the inputs, shift each row by its max, compute log-probabilities,
    # pick the target's (and smooth), zero the ignored samples and reduce.
    raise NotImplementedError


def distillation_loss(
    student_logits: torch.Tensor,
    teacher_logits: torch.Tensor,
    target: torch.Tensor,
    *,
    temperature: float = 2.0,
    alpha: float = 0.5,
) -> torch.Tensor:
    """The knowledge-distillation loss of a student against a teacher and the hard labels.

    - student_logits, teacher_logits: [N, C] floating tensors (float32 or float64) of the
      same shape, dtype and device, N >= 1 samples, every value finite (±1e4 too).
      target: [N] int64 class indices in [0, C), on the same device.
    - With T = temperature, p = softmax(teacher_logits / T) and q = softmax(student_logits / T)
      (per sample, over the classes):
      loss = alpha * T² * mean over samples of KL(p || q)
             + (1 - alpha) * mean over samples of cross-entropy(student_logits, target),
      where KL(p || q) = sum over c of p[c] * (log p[c] - log q[c]); a class whose teacher
      probability underflows to 0 adds 0 (never nan). The cross-entropy term is of the
      student's raw logits (temperature 1), as F.cross_entropy gives it. The T² keeps the
      soft term's gradients, which shrink like 1 / T², on the scale of the hard term's.
    - The teacher is a fixed target: no gradient reaches teacher_logits (its .grad stays
      None after backward, even when it requires grad, as the output of a teacher model in
      a training loop does). Gradients flow to student_logits and are finite.
    - Returns a 0-dim tensor with student_logits' dtype, on its device. The inputs are not
      modified.
    - Raises ValueError if student_logits is not 2-D, teacher_logits' shape differs from it,
      target's shape is not [N], temperature is not a finite number > 0, or alpha is not in
      [0, 1] (NaN included for both).

    Here torch's own losses are the point: F.kl_div, F.log_softmax, F.softmax and
    F.cross_entropy are allowed (the rules above are `cross_entropy`'s). Hint:
    F.kl_div(log q, p, reduction="batchmean"), or with log p as target and log_target=True.

    >>> student = torch.tensor([[2.0, 0.0, -1.0]])
    >>> distillation_loss(student, student.clone(), torch.tensor([0]), alpha=1.0)  # KL(p || p) = 0
    tensor(0.)
    >>> distillation_loss(student, torch.zeros(1, 3), torch.tensor([0]), alpha=0.0)  # CE alone
    tensor(0.1698)
    """
    # TODO: validate, soften both with the temperature, KL per sample (batchmean), scale by
    # T², mix with the hard-label cross-entropy.
    raise NotImplementedError
