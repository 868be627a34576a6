"""Float64 internals: the max-shifted log-sum-exp by exp/sum/log, targets by advanced indexing,
smoothing terms skipped by their factor; distillation's KL written out with torch.where."""

import math

import torch
import torch.nn.functional as F

_REDUCTIONS = ("mean", "sum", "none")


def _log_probs64(logits: torch.Tensor) -> torch.Tensor:
    x = logits.to(torch.float64)
    # The shift is a constant per row: detaching it changes no value and no gradient.
    shifted = x - x.amax(dim=1, keepdim=True).detach()
    return shifted - shifted.exp().sum(dim=1, keepdim=True).log()


def cross_entropy(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    weight: torch.Tensor | None = None,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
    reduction: str = "mean",
) -> torch.Tensor:
    if logits.dim() != 2:
        raise ValueError(f"logits must be [N, C], got shape {tuple(logits.shape)}")
    n, c = logits.shape
    if tuple(target.shape) != (n,):
        raise ValueError(f"target must have shape [{n}], got {tuple(target.shape)}")
    if target.dtype != torch.int64:
        raise ValueError(f"target must be int64, got {target.dtype}")
    if not isinstance(reduction, str) or reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")
    eps = float(label_smoothing)
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"label_smoothing must be in [0, 1], got {label_smoothing}")
    if weight is not None and tuple(weight.shape) != (c,):
        raise ValueError(f"weight must have shape [{c}], got {tuple(weight.shape)}")

    logp = _log_probs64(logits)  # [N, C] float64
    keep = target != ignore_index
    safe = torch.where(keep, target, torch.zeros_like(target))
    rows = torch.arange(n, device=logits.device)
    w64 = None if weight is None else weight.to(torch.float64)

    per_sample = torch.zeros(n, dtype=torch.float64, device=logits.device)
    if eps != 1.0:
        picked = logp[rows, safe]
        if w64 is not None:
            picked = picked * w64[safe]
        per_sample = per_sample - (1.0 - eps) * picked
    if eps != 0.0:
        terms = logp if w64 is None else logp * w64
        per_sample = per_sample - eps * terms.mean(dim=1)
    # where, not a multiplication by the mask: its backward gives ignored rows exactly 0.
    per_sample = torch.where(keep, per_sample, torch.zeros_like(per_sample))

    if reduction == "none":
        out = per_sample
    elif reduction == "sum":
        out = per_sample.sum()
    else:
        if w64 is None:
            denom = keep.sum().to(torch.float64)
        else:
            denom = torch.where(keep, w64[safe], torch.zeros_like(w64[safe])).sum()
        out = per_sample.sum() / denom
    return out.to(logits.dtype)


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
    if tuple(target.shape) != (student_logits.shape[0],):
        raise ValueError("target must have shape [N]")
    t = float(temperature)
    if not (math.isfinite(t) and t > 0):
        raise ValueError(f"temperature must be a finite number > 0, got {temperature}")
    a = float(alpha)
    if not 0.0 <= a <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")

    log_q = F.log_softmax(student_logits.to(torch.float64) / t, dim=1)
    log_p = F.log_softmax(teacher_logits.detach().to(torch.float64) / t, dim=1)
    p = log_p.exp()
    # A class whose teacher probability is 0 adds 0, whatever log q is.
    kl_terms = torch.where(p > 0, p * (log_p - log_q), torch.zeros_like(p))
    kl = kl_terms.sum(dim=1).mean()
    hard = F.cross_entropy(student_logits.to(torch.float64), target)
    return (a * t * t * kl + (1.0 - a) * hard).to(student_logits.dtype)
