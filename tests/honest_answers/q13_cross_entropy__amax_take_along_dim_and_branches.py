"""amax shift, take_along_dim, branches that skip zero-factor terms, a weight vector always."""

import math

import torch

_REDUCTIONS = frozenset({"mean", "sum", "none"})


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
        raise ValueError(f"logits must be [N, C], got {tuple(logits.shape)}")
    n, c = logits.shape
    if target.shape != (n,):
        raise ValueError(f"target must be [{n}], got {tuple(target.shape)}")
    if target.dtype != torch.int64:
        raise ValueError(f"target must be int64, got {target.dtype}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}")
    eps = float(label_smoothing)
    if math.isnan(eps) or not 0.0 <= eps <= 1.0:
        raise ValueError(f"label_smoothing must be in [0, 1], got {label_smoothing}")
    if weight is not None and weight.shape != (c,):
        raise ValueError(f"weight must be [{c}], got {tuple(weight.shape)}")
    class_weight = logits.new_ones(c) if weight is None else weight

    top = logits.detach().amax(dim=1, keepdim=True)
    shifted = logits - top
    log_p = shifted - shifted.exp().sum(dim=1, keepdim=True).log()

    ignored = target == ignore_index
    safe = torch.where(ignored, torch.zeros_like(target), target)
    picked_weight = class_weight[safe]
    per_sample = logits.new_zeros(n)
    if eps < 1.0:
        picked = log_p.take_along_dim(safe.unsqueeze(1), dim=1).squeeze(1)
        per_sample = per_sample - (1.0 - eps) * picked_weight * picked
    if eps > 0.0:
        per_sample = per_sample - eps * (log_p * class_weight).mean(dim=1)
    per_sample = torch.where(ignored, torch.zeros_like(per_sample), per_sample)

    if reduction == "none":
        return per_sample
    if reduction == "sum":
        return per_sample.sum()
    counted = torch.where(ignored, torch.zeros_like(picked_weight), picked_weight)
    return per_sample.sum() / counted.sum()


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
    teacher = teacher_logits.detach()
    log_p = torch.log_softmax(teacher / temperature, dim=1)
    log_q = torch.log_softmax(student_logits / temperature, dim=1)
    p = log_p.exp()
    # A class the teacher gives probability 0 adds 0, whatever log_q is there.
    per_class = torch.where(p > 0, p * (log_p - log_q), torch.zeros_like(p))
    kl = per_class.sum(dim=1).sum() / student_logits.shape[0]
    hard = -torch.log_softmax(student_logits, dim=1).gather(1, target[:, None]).mean()
    return alpha * (temperature**2) * kl + (1.0 - alpha) * hard
