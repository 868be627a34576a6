"""Correct: the smoothed one-hot target distribution (1 - ε on the class, ε / C on every
class) times the class weights (ones without any), its terms of weight 0 masked by
torch.where, the mean divided in the logits' dtype."""

import math

import torch


def cross_entropy(
    logits, target, *, weight=None, ignore_index=-100, label_smoothing=0.0, reduction="mean"
):
    if logits.ndim != 2:
        raise ValueError("logits must be 2-D")
    n, c = logits.shape
    if tuple(target.shape) != (n,) or target.dtype is not torch.int64:
        raise ValueError("target must be int64 of shape [N]")
    if reduction not in {"mean", "sum", "none"}:
        raise ValueError("bad reduction")
    if not (label_smoothing >= 0 and label_smoothing <= 1):
        raise ValueError("label_smoothing must lie in [0, 1]")
    if weight is not None and tuple(weight.shape) != (c,):
        raise ValueError("weight must hold one number per class")
    class_weight = torch.ones(c, dtype=logits.dtype, device=logits.device)
    if weight is not None:
        class_weight = weight
    top = logits.detach().max(dim=1, keepdim=True).values
    shifted = logits - top
    log_p = shifted - torch.log(torch.exp(shifted).sum(dim=1, keepdim=True))
    counted = target.ne(ignore_index)
    index = target.masked_fill(~counted, 0)
    one_hot = torch.zeros_like(log_p).scatter_(1, index[:, None], 1.0)
    weights = ((1 - label_smoothing) * one_hot + label_smoothing / c) * class_weight
    # A weight of 0 adds nothing, even against a log-probability of -inf.
    terms = torch.where(weights > 0, weights * log_p, torch.zeros_like(log_p))
    per_sample = torch.where(
        counted, -terms.sum(dim=1), torch.zeros((), dtype=logits.dtype, device=logits.device)
    )
    if reduction == "none":
        return per_sample
    total = per_sample.sum()
    if reduction == "sum":
        return total
    return total / (class_weight[index] * counted.to(logits.dtype)).sum()


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
    # KL(p || q) = H(p, q) - H(p): the soft cross-entropy minus the teacher's entropy,
    # with xlogy so a probability of 0 adds 0.
    p = torch.softmax(teacher_logits.detach() / temperature, dim=1)
    log_q = torch.log_softmax(student_logits / temperature, dim=1)
    kl = (torch.special.xlogy(p, p) - p * log_q).sum(dim=1).mean()
    hard = cross_entropy(student_logits, target)
    return alpha * temperature * temperature * kl + (1 - alpha) * hard
