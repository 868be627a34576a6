"""An Enum for the reduction, typing.Final constants, the log-sum-exp through a masked mean."""

import enum
import math
from typing import Final

import torch

_NO_CLASS: Final = 0


class Reduction(enum.Enum):
    MEAN = "mean"
    SUM = "sum"
    NONE = "none"


def cross_entropy(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    weight: torch.Tensor | None = None,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
    reduction: str = "mean",
) -> torch.Tensor:
    if logits.ndim != 2 or target.shape != (logits.shape[0],):
        raise ValueError(f"need [N, C] logits and [N] target, got {logits.shape}, {target.shape}")
    if target.dtype is not torch.int64:
        raise ValueError("target must be int64")
    try:
        how = Reduction(reduction)
    except ValueError as error:
        raise ValueError(f"bad reduction {reduction!r}") from error
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError("label_smoothing must lie in [0, 1]")
    if weight is not None and weight.shape != logits.shape[-1:]:
        raise ValueError(f"weight must have shape [C], got {tuple(weight.shape)}")
    top = logits.max(dim=-1, keepdim=True).values.detach()
    log_norm = (logits - top).exp().sum(-1, keepdim=True).log() + top
    log_probs = logits - log_norm
    valid = target.ne(ignore_index)
    classes = target.masked_fill(~valid, _NO_CLASS)
    picked = log_probs.gather(-1, classes[:, None])[:, 0]
    spread = log_probs
    counted = valid.sum()
    if weight is not None:
        picked = picked * weight[classes]
        spread = spread * weight
        counted = weight[classes].masked_fill(~valid, 0.0).sum()
    # Only the terms of weight > 0: 0 * -inf would be nan for logits at the dtype's limits.
    terms = ((1.0 - label_smoothing, picked), (label_smoothing, spread.mean(-1)))
    per_sample = -sum(weight * term for weight, term in terms if weight)
    per_sample = per_sample.masked_fill(~valid, 0.0)
    if how is Reduction.NONE:
        return per_sample
    total = per_sample.sum()
    return total if how is Reduction.SUM else total / counted


def distillation_loss(
    student_logits: torch.Tensor,
    teacher_logits: torch.Tensor,
    target: torch.Tensor,
    *,
    temperature: float = 2.0,
    alpha: float = 0.5,
) -> torch.Tensor:
    if student_logits.dim() != 2:
        raise ValueError("student_logits must be 2-D")
    if teacher_logits.shape != student_logits.shape:
        raise ValueError("teacher_logits must have the student's shape")
    if target.shape != student_logits.shape[:1]:
        raise ValueError("target must be [N]")
    if not (0 < temperature < math.inf):
        raise ValueError(f"temperature must be a finite number > 0, got {temperature}")
    if not (0 <= alpha <= 1):
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    # torch's loss modules, built per call.
    kl = torch.nn.KLDivLoss(reduction="batchmean", log_target=True)
    ce = torch.nn.CrossEntropyLoss()
    log_q = torch.log_softmax(student_logits / temperature, dim=-1)
    log_p = torch.log_softmax(teacher_logits.detach() / temperature, dim=-1)
    return alpha * temperature**2 * kl(log_q, log_p) + (1 - alpha) * ce(student_logits, target)
