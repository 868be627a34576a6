"""Cross-entropy as a list of the terms whose factor is not 0, class weights defaulting to ones."""

import math

import torch
import torch.nn.functional as F


def cross_entropy(
    logits, target, *, weight=None, ignore_index=-100, label_smoothing=0.0, reduction="mean"
):
    if logits.ndim != 2:
        raise ValueError("logits must be 2-D")
    n, c = logits.shape
    if tuple(target.shape) != (n,) or target.dtype is not torch.int64:
        raise ValueError("target must be int64 of shape [N]")
    if not isinstance(reduction, str) or reduction not in {"mean", "sum", "none"}:
        raise ValueError("bad reduction")
    if not (0.0 <= label_smoothing <= 1.0):
        raise ValueError("bad label_smoothing")
    if weight is not None and tuple(weight.shape) != (c,):
        raise ValueError("bad weight")
    w = torch.ones(c, dtype=logits.dtype, device=logits.device) if weight is None else weight
    top = logits.max(dim=1, keepdim=True).values.detach()
    z = logits - top
    logp = z - torch.log(torch.exp(z).sum(dim=1, keepdim=True))
    valid = target.ne(ignore_index)
    idx = target.masked_fill(~valid, 0)
    terms = []
    if label_smoothing < 1:
        terms.append(-(1 - label_smoothing) * w[idx] * logp.gather(1, idx[:, None])[:, 0])
    if label_smoothing > 0:
        terms.append(-label_smoothing * (logp * w).sum(dim=1) / c)
    per = terms[0] if len(terms) == 1 else terms[0] + terms[1]
    per = torch.where(valid, per, torch.zeros((), dtype=per.dtype, device=per.device))
    if reduction == "none":
        return per
    if reduction == "sum":
        return per.sum()
    denom = torch.where(valid, w[idx], torch.zeros((), dtype=w.dtype, device=w.device)).sum()
    return per.sum() / denom


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
    # F.kl_div with probabilities as the target (log_target=False), batchmean per sample.
    with torch.no_grad():
        p = F.softmax(teacher_logits / temperature, dim=1)
    soft = F.kl_div(F.log_softmax(student_logits / temperature, dim=1), p, reduction="batchmean")
    return alpha * temperature**2 * soft + (1 - alpha) * F.cross_entropy(student_logits, target)
