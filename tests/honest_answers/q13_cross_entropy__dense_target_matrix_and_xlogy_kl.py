"""cross_entropy builds each row's target distribution as a dense coefficient
matrix (smoothing spread plus a scattered one-hot) and contracts it with the log-probabilities
under torch.where; distillation_loss writes the KL with torch.special.xlogy and reuses it."""

import math

import torch
import torch.nn.functional as F

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
    if logits.ndim != 2:
        raise ValueError(f"logits must be [N, C], got shape {tuple(logits.shape)}")
    n, c = logits.shape
    if target.shape != (n,):
        raise ValueError(f"target must have shape ({n},), got {tuple(target.shape)}")
    if target.dtype is not torch.int64:
        raise ValueError(f"target must be int64, got {target.dtype}")
    if not isinstance(reduction, str) or reduction not in _REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be in [0, 1], got {label_smoothing}")
    if weight is not None and weight.shape != (c,):
        raise ValueError(f"weight must have shape ({c},), got {tuple(weight.shape)}")

    # log p = (x - max) - log(sum(exp(x - max))): every exponent is <= 0.
    shifted = logits - logits.amax(dim=1, keepdim=True)
    log_p = shifted - shifted.exp().sum(dim=1, keepdim=True).log()

    ignored = target == ignore_index
    safe = target.masked_fill(ignored, 0)  # any valid class; these rows are zeroed below
    w = torch.ones(c, dtype=logits.dtype, device=logits.device) if weight is None else weight

    eps = float(label_smoothing)
    coef = (eps / c) * w.expand(n, c)
    hard = torch.zeros_like(coef).scatter_(1, safe.unsqueeze(1), (1.0 - eps) * w[safe].unsqueeze(1))
    coef = coef + hard
    # A zero coefficient adds nothing, even against a log-probability of -inf.
    zero = torch.zeros((), dtype=log_p.dtype, device=log_p.device)
    terms = torch.where(coef > 0, coef * log_p, zero)
    per_sample = torch.where(ignored, zero, -terms.sum(dim=1))

    if reduction == "none":
        return per_sample
    total = per_sample.sum()
    if reduction == "sum":
        return total
    counted = torch.where(ignored, torch.zeros_like(w[safe]), w[safe]).sum()
    return total / counted


def _kl_rows(teacher_scaled: torch.Tensor, student_scaled: torch.Tensor) -> torch.Tensor:
    """KL(p || q) per row; a zero teacher probability adds exactly 0."""
    p = F.softmax(teacher_scaled, dim=1)
    log_q = F.log_softmax(student_scaled, dim=1)
    return (torch.special.xlogy(p, p) - p * log_q).sum(dim=1)


def distillation_loss(
    student_logits: torch.Tensor,
    teacher_logits: torch.Tensor,
    target: torch.Tensor,
    *,
    temperature: float = 2.0,
    alpha: float = 0.5,
) -> torch.Tensor:
    if student_logits.ndim != 2:
        raise ValueError("student_logits must be 2-D")
    if teacher_logits.shape != student_logits.shape:
        raise ValueError("teacher_logits must have student_logits' shape")
    if target.shape != student_logits.shape[:1]:
        raise ValueError("target must have shape [N]")
    if not (math.isfinite(temperature) and temperature > 0):
        raise ValueError(f"temperature must be finite and > 0, got {temperature}")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    t = float(temperature)
    soft = _kl_rows(teacher_logits.detach() / t, student_logits / t).mean()
    hard = cross_entropy(student_logits, target)
    return alpha * t * t * soft + (1.0 - alpha) * hard
